import * as v from 'valibot';
import { emailField, LONG_MAX, optionalText, requiredText } from './fields.ts';

export const PartnerWebinarRequestSchema = v.object({
  fullName: requiredText('Full name of the registrant'),
  workEmail: emailField('Work email address; personal-domain addresses are rejected'),
  questions: optionalText('Questions for the webinar', LONG_MAX),
});
export type PartnerWebinarRequestInput = v.InferInput<typeof PartnerWebinarRequestSchema>;
export type PartnerWebinarRequestOutput = v.InferOutput<typeof PartnerWebinarRequestSchema>;
