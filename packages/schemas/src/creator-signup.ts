import * as v from 'valibot';
import { emailField, optionalText, URL_MAX } from './fields.ts';

export const CreatorSignupRequestSchema = v.object({
  email: emailField('Email address'),
  name: optionalText('Full name'),
  instagram: optionalText('Instagram handle or URL', URL_MAX),
  tiktok: optionalText('TikTok handle or URL', URL_MAX),
  youtube: optionalText('YouTube channel handle or URL', URL_MAX),
  x: optionalText('X handle or URL', URL_MAX),
  whatsappNumber: optionalText('WhatsApp number'),
});
export type CreatorSignupRequestInput = v.InferInput<typeof CreatorSignupRequestSchema>;
export type CreatorSignupRequestOutput = v.InferOutput<typeof CreatorSignupRequestSchema>;
