import * as v from 'valibot';
import { emailField, LONG_MAX, optionalText } from './fields.ts';

export const ContactRequestSchema = v.object({
  email: emailField('Email address of the submitter'),
  name: optionalText('Full name of the submitter'),
  phoneNumber: optionalText('Phone number'),
  userType: optionalText('Free string; suggested kinds are brand, creator, agency'),
  message: optionalText('Message to the team', LONG_MAX),
  affiliatesPerMonth: optionalText('How many affiliates per month'),
});
export type ContactRequestInput = v.InferInput<typeof ContactRequestSchema>;
export type ContactRequestOutput = v.InferOutput<typeof ContactRequestSchema>;
