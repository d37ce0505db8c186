import * as v from 'valibot';
import { emailField, LONG_MAX, optionalText, requiredText, URL_MAX } from './fields.ts';
import { maxCodePoints } from './max-code-points.ts';

export const CV_CONTENT_TYPES = [
  'application/pdf',
  'application/msword',
  'application/vnd.openxmlformats-officedocument.wordprocessingml.document',
] as const;

/** The decoded size limit of a CV attachment. */
export const CV_MAX_BYTES = 5 * 1024 * 1024;
/** The longest `cvFile.data` accepted: a CV of CV_MAX_BYTES in base64, plus room for a data-URL prefix. */
export const CV_DATA_MAX_LENGTH = Math.ceil(CV_MAX_BYTES / 3) * 4 + 256;

export const CvFileSchema = v.object({
  filename: requiredText('Original file name (kept as metadata only)', 255),
  contentType: v.pipe(v.picklist(CV_CONTENT_TYPES), v.description('PDF, DOC or DOCX')),
  // base64 grows 4/3; the cap allows a 5 MiB file plus an optional data-URL prefix.
  data: v.pipe(
    v.string(),
    v.minLength(1),
    maxCodePoints(CV_DATA_MAX_LENGTH),
    v.description('Base64 file contents, at most 5 MiB decoded; a data: URL prefix is accepted and stripped'),
  ),
});

export const CareersApplyRequestSchema = v.object({
  name: requiredText('Full name of the applicant'),
  email: emailField('Email address; syntax-validated only, no work-domain restriction'),
  role: requiredText('Role applied for'),
  linkedin: optionalText('LinkedIn profile URL', URL_MAX),
  cv: optionalText('CV or resume link', URL_MAX),
  note: optionalText('Cover note', LONG_MAX),
  cvFile: v.optional(CvFileSchema),
});
export type CareersApplyRequestInput = v.InferInput<typeof CareersApplyRequestSchema>;
export type CareersApplyRequestOutput = v.InferOutput<typeof CareersApplyRequestSchema>;
