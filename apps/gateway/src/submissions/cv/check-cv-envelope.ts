import { CV_DATA_MAX_LENGTH } from '@forms/schemas';
import { ApiError } from '../../errors.ts';

/**
 * The CV size check that must run before schema validation, on the raw body: an oversize `cvFile.data`
 * would otherwise come back as a 400 INVALID_FIELD, and a size problem must be a 413 that says what to do.
 * Everything else about `cvFile` is the schema's (a type outside PDF/DOC/DOCX is INVALID_FIELD naming
 * `cvFile.contentType` and the accepted values, like every other enumerated field).
 */
export function checkCvEnvelope(body: unknown): void {
  const data = (body as { cvFile?: { data?: unknown } } | null)?.cvFile?.data;
  if (typeof data === 'string' && data.length > CV_DATA_MAX_LENGTH)
    throw new ApiError('CV_TOO_LARGE', { field: 'cvFile.data' });
}
