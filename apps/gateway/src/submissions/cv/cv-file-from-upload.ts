import { CV_CONTENT_TYPES } from '@forms/schemas';

const BY_EXTENSION: Record<string, (typeof CV_CONTENT_TYPES)[number]> = {
  pdf: 'application/pdf',
  doc: 'application/msword',
  docx: 'application/vnd.openxmlformats-officedocument.wordprocessingml.document',
};

/**
 * A CV sent as a file input (`<input type="file" name="cvFile">` in a multipart post), as the `cvFile`
 * object a JSON caller sends: `{filename, contentType, data}` with the bytes in base64. Mapped, not handled
 * apart, so one path checks every CV: the schema (name, type), the size (CV_TOO_LARGE), the sniffed magic
 * numbers (`decodeCv`), the idempotency fingerprint and staging. The cost is one base64 round trip of at
 * most 5 MiB (a few milliseconds), against a second CV path to keep in step. The type is the browser's
 * when it is one we take, else read from the file name's extension (a browser that does not know `.docx`
 * sends application/octet-stream); anything else is left for the schema to refuse, naming the field.
 */
export function cvFileFromUpload({ filename, mimeType, bytes }: { filename: string; mimeType: string; bytes: Buffer }) {
  const sent = mimeType.toLowerCase();
  const known = (CV_CONTENT_TYPES as readonly string[]).includes(sent);
  const extension = filename.slice(filename.lastIndexOf('.') + 1).toLowerCase();
  return {
    filename,
    contentType: known ? sent : (BY_EXTENSION[extension] ?? sent),
    data: bytes.toString('base64'),
  };
}
