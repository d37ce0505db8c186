import type { SubmissionKind } from '@forms/schemas';
import type { GatewayConfig } from '../config.ts';
import { CHALLENGE_TOKEN_FIELDS } from './spam/verify-challenge.ts';

/**
 * A browser's own form post (JavaScript off) to a form whose challenge is `required`, without a token: no
 * widget ran, so none could be there. The spam layers hold it (`challenge:plain-form-no-token`); what the
 * person meets is decided here, before the answer and for free: the gateway's own page saying it was
 * received and waits for a person's review, with the address to write to if it is urgent, instead of a
 * thank-you page that would promise it reached the team (docs/site-forms.md#challenges). An agent is asked
 * no challenge; a `scored` form counts the missing token half and answers as usual.
 */
export function plainFormWithoutToken(
  spam: GatewayConfig['spam'],
  kind: SubmissionKind,
  body: unknown,
  agent: string | undefined,
): boolean {
  if (!spam.challenge || agent || spam.rules[kind].challenge !== 'required') return false;
  const token = (body as Record<string, unknown>)[CHALLENGE_TOKEN_FIELDS[spam.challenge.provider]];
  return !(typeof token === 'string' && token.trim() !== '');
}
