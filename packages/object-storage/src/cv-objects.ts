import type { CvFileSchema } from '@forms/schemas';
import type * as v from 'valibot';

type CvContentType = v.InferOutput<typeof CvFileSchema>['contentType'];

/** The extension each accepted type is stored under: it comes from the checked type, never the client. */
export const CV_EXTENSIONS: Record<CvContentType, 'pdf' | 'doc' | 'docx'> = {
  'application/pdf': 'pdf',
  'application/msword': 'doc',
  'application/vnd.openxmlformats-officedocument.wordprocessingml.document': 'docx',
};

/**
 * Keys are built from the submission id (a server-made ULID, unique per application) and the checked type
 * only, so two applications cannot collide and no client filename can steer a key (no `../`, no prefix
 * games). The client's filename is kept as metadata and in Content-Disposition, sanitised.
 * `incoming/` holds what the gateway staged; a lifecycle rule may expire it, the worker never needs it
 * once the final copy exists.
 */
export function stagedCvKey(submissionId: string, contentType: CvContentType): string {
  return `incoming/cv/${checkedId(submissionId)}.${CV_EXTENSIONS[contentType]}`;
}

export function finalCvKey(submissionId: string, contentType: CvContentType): string {
  return `cv/${checkedId(submissionId)}.${CV_EXTENSIONS[contentType]}`;
}

function checkedId(submissionId: string): string {
  if (!/^[\w-]+$/.test(submissionId)) throw new Error(`Not a submission id: ${JSON.stringify(submissionId)}`);
  return submissionId;
}

/**
 * A file name safe to show and save: the client's base name with control characters, path separators and
 * quotes removed, at most 100 characters, ending in the extension of the checked type (so a "cv.exe"
 * that is really a PDF downloads as "cv.exe.pdf", and a missing name becomes "cv.pdf").
 */
export function safeCvFilename(original: string, contentType: CvContentType): string {
  const ext = CV_EXTENSIONS[contentType];
  const base = (original.split(/[\\/]/).pop() ?? '')
    .normalize('NFC')
    // biome-ignore lint/suspicious/noControlCharactersInRegex: control characters are what this strips from a file name
    .replace(/[\u0000-\u001f\u007f"*:<>?|;]/g, '')
    .replace(/\s+/g, ' ')
    .replace(/^[.\s]+|[.\s]+$/g, '');
  const stem = base.toLowerCase().endsWith(`.${ext}`) ? base.slice(0, -(ext.length + 1)) : base;
  return `${[...(stem || 'cv')].slice(0, 100 - ext.length - 1).join('')}.${ext}`;
}

/**
 * `attachment` with an ASCII fallback name and the UTF-8 name (RFC 6266 / RFC 8187), so a browser saves
 * the CV under its own name instead of rendering it.
 */
export function cvContentDisposition(original: string, contentType: CvContentType): string {
  const name = safeCvFilename(original, contentType);
  const ascii =
    name
      .normalize('NFKD')
      .replace(/[^\x20-\x7e]/g, '')
      .replace(/[\\%]/g, '') || `cv.${CV_EXTENSIONS[contentType]}`;
  const encoded = encodeURIComponent(name).replace(/['()*]/g, (c) => `%${c.charCodeAt(0).toString(16).toUpperCase()}`);
  return `attachment; filename="${ascii}"; filename*=UTF-8''${encoded}`;
}

/**
 * User metadata stored with the object. S3 metadata travels as HTTP headers (ASCII only), so the original
 * name is percent-encoded; `sha256` lets the worker and ops check a copy without reading it.
 */
export function cvMetadata({
  filename,
  sha256,
  submissionId,
}: {
  filename: string;
  sha256: string;
  submissionId: string;
}): Record<string, string> {
  return { 'original-filename': encodeURIComponent(filename), sha256, 'submission-id': submissionId };
}
