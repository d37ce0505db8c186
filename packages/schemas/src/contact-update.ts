import * as v from 'valibot';
import { emailField, LONG_MAX, optionalBooleanOrString, optionalText, SHORT_MAX } from './fields.ts';
import { maxCodePoints } from './max-code-points.ts';

export const ContactUpdateRequestSchema = v.object({
  email: emailField('The key of the upsert'),
  name: optionalText('Full name'),
  phoneNumber: optionalText('Phone number'),
  message: optionalText('Message to the team', LONG_MAX),
  usingInfluencers: optionalBooleanOrString('Whether the brand uses influencers today'),
  influencersPerMonth: v.optional(
    v.pipe(
      v.union([v.pipe(v.number(), v.integer(), v.minValue(0)), v.pipe(v.string(), maxCodePoints(SHORT_MAX))]),
      v.description('Influencers per month, as an integer or a string'),
    ),
  ),
  monthlyBudget: optionalText('Monthly budget'),
  planOnUsingInfluencers: optionalBooleanOrString('Whether the brand plans to use influencers'),
  pricingTier: optionalText('Tier label passed through to the CRM; listed labels are nano, micro, mid, macro'),
  sourcePage: optionalText('Page the submission came from'),
  calculatorSummary: optionalText('Summary from the pricing calculator', LONG_MAX),
  hearAboutUs: optionalText(
    'Suggested kinds: Google, Instagram, TikTok, LinkedIn, AI assistant, Word of mouth, Event / conference, Other',
  ),
});
export type ContactUpdateRequestInput = v.InferInput<typeof ContactUpdateRequestSchema>;
export type ContactUpdateRequestOutput = v.InferOutput<typeof ContactUpdateRequestSchema>;
