import { createHash } from 'node:crypto';
import { CV_MAX_BYTES, type CvFileSchema } from '@forms/schemas';
import { fileTypeFromBuffer } from 'file-type';
import type * as v from 'valibot';
import { ApiError } from '../../errors.ts';

type CvFile = v.InferOutput<typeof CvFileSchema>;

/** A CV that passed every check at the door: its bytes, what they are, and their digest. */
export type CheckedCv = {
  bytes: Buffer;
  filename: string;
  contentType: CvFile['contentType'];
  size: number;
  sha256: string;
};

/** What file-type reports for each accepted type. DOC is any OLE2 compound file: DOC has no signature of its own. */
const SNIFFED: Record<CvFile['contentType'], { mime: string; label: string }> = {
  'application/pdf': { mime: 'application/pdf', label: 'a PDF' },
  'application/msword': { mime: 'application/x-cfb', label: 'a DOC (OLE2 compound file)' },
  'application/vnd.openxmlformats-officedocument.wordprocessingml.document': {
    mime: 'application/vnd.openxmlformats-officedocument.wordprocessingml.document',
    label: 'a DOCX (an Office Open XML package with word/)',
  },
};

/**
 * Decodes and checks an attached CV: base64 that round-trips, within the size limit, and bytes whose magic
 * numbers match `contentType` (a renamed PNG or an .exe called cv.pdf is refused). A data-URL prefix
 * (`data:application/pdf;base64,`), as FileReader.readAsDataURL gives, is accepted and stripped: refusing
 * it would only push every site form to strip it by hand.
 */
export async function decodeCv(cvFile: CvFile): Promise<CheckedCv> {
  const base64 = stripDataUrl(cvFile.data).replace(/\s+/g, '');
  const bytes = decodeStrictBase64(base64);
  if (bytes.length > CV_MAX_BYTES) throw new ApiError('CV_TOO_LARGE', { field: 'cvFile.data' });
  if (bytes.length === 0) throw new ApiError('CV_CONTENT_MISMATCH', { field: 'cvFile.data', detail: 'are empty' });

  const expected = SNIFFED[cvFile.contentType];
  const found = await fileTypeFromBuffer(bytes);
  if (found?.mime !== expected.mime) {
    const seen = found ? `look like ${found.ext.toUpperCase()} (${found.mime})` : 'are of no recognised type';
    throw new ApiError('CV_CONTENT_MISMATCH', { field: 'cvFile.data', detail: `${seen}, not ${expected.label}` });
  }
  return {
    bytes,
    filename: cvFile.filename,
    contentType: cvFile.contentType,
    size: bytes.length,
    sha256: createHash('sha256').update(bytes).digest('hex'),
  };
}

function stripDataUrl(data: string): string {
  if (!data.startsWith('data:')) return data;
  const comma = data.indexOf(',');
  // Only base64 data URLs carry binary safely; a percent-encoded one is not base64 at all.
  if (comma < 0 || !data.slice(0, comma).endsWith(';base64'))
    throw new ApiError('CV_INVALID_BASE64', { field: 'cvFile.data' });
  return data.slice(comma + 1);
}

/**
 * Node's base64 decoder skips characters it does not know, so "not base64!" would decode to a few junk
 * bytes. Strict: standard or URL-safe alphabet, padding optional, and re-encoding must give back the input.
 */
function decodeStrictBase64(base64: string): Buffer {
  const urlSafe = /[-_]/.test(base64);
  const unpadded = base64.replace(/={1,2}$/, '');
  if (unpadded.length % 4 === 1 || (urlSafe && /[+/]/.test(base64)))
    throw new ApiError('CV_INVALID_BASE64', { field: 'cvFile.data' });
  const bytes = Buffer.from(unpadded, urlSafe ? 'base64url' : 'base64');
  const again = bytes.toString(urlSafe ? 'base64url' : 'base64').replace(/=+$/, '');
  if (again !== unpadded) throw new ApiError('CV_INVALID_BASE64', { field: 'cvFile.data' });
  return bytes;
}
