import * as v from 'valibot';
import { emailField, optionalText } from './fields.ts';

/** caf-signup, cdg-signup. The work-domain rule is checked by the gateway after parsing. */
export const EmailOnlyWorkSignupRequestSchema = v.object({
  email: emailField('Work email address; personal-domain addresses are rejected'),
});
export type EmailOnlyWorkSignupRequestInput = v.InferInput<typeof EmailOnlyWorkSignupRequestSchema>;
export type EmailOnlyWorkSignupRequestOutput = v.InferOutput<typeof EmailOnlyWorkSignupRequestSchema>;

/** cpa-signup, sfa-signup, rebriefing-signup. */
export const WorkEmailSignupRequestSchema = v.object({
  email: emailField('Work email address; personal-domain addresses are rejected'),
  phoneNumber: optionalText('Phone number'),
});
export type WorkEmailSignupRequestInput = v.InferInput<typeof WorkEmailSignupRequestSchema>;
export type WorkEmailSignupRequestOutput = v.InferOutput<typeof WorkEmailSignupRequestSchema>;
