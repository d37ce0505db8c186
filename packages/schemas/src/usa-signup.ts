import * as v from 'valibot';
import { emailField, optionalText } from './fields.ts';

export const UsaSignupRequestSchema = v.object({
  email: emailField('Email address'),
  name: optionalText('Full name'),
  gifted_or_allowlisted: optionalText('Whether the brand has run gifted or allowlisted creator campaigns'),
  already_working_with_influencers: v.optional(
    v.pipe(v.boolean(), v.description('Whether the brand already runs influencer programmes')),
  ),
});
export type UsaSignupRequestInput = v.InferInput<typeof UsaSignupRequestSchema>;
export type UsaSignupRequestOutput = v.InferOutput<typeof UsaSignupRequestSchema>;
