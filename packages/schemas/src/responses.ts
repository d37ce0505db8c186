import * as v from 'valibot';

export const ContactResponseSchema = v.object({
  success: v.boolean(),
  message: v.string(),
  recordId: v.pipe(v.string(), v.description('The contact id, stable per email')),
  isWorkEmail: v.boolean(),
});
export type ContactResponse = v.InferOutput<typeof ContactResponseSchema>;

export const ContactUpdateResponseSchema = v.object({
  success: v.boolean(),
  message: v.string(),
  recordId: v.pipe(v.string(), v.description('The contact id, stable per email')),
  updated: v.pipe(v.boolean(), v.description('True exactly when the email was already known')),
  debug: v.object({
    fieldsWritten: v.pipe(v.array(v.string()), v.description('CRM fields the job will write')),
    baseId: v.pipe(v.string(), v.description('The configured CRM base')),
  }),
});
export type ContactUpdateResponse = v.InferOutput<typeof ContactUpdateResponseSchema>;

export const BasicSignupResponseSchema = v.object({ success: v.boolean(), message: v.string() });
export type BasicSignupResponse = v.InferOutput<typeof BasicSignupResponseSchema>;

export const SignupResponseSchema = v.object({ success: v.boolean(), message: v.string(), recordId: v.string() });
export type SignupResponse = v.InferOutput<typeof SignupResponseSchema>;

export const CareersApplyResponseSchema = v.object({
  success: v.boolean(),
  message: v.string(),
  recordId: v.string(),
  cvUploadFailed: v.pipe(
    v.boolean(),
    v.description('The application was accepted but its attachment could not be kept'),
  ),
});
export type CareersApplyResponse = v.InferOutput<typeof CareersApplyResponseSchema>;
