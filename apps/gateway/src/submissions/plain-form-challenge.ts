import type { SubmissionKind } from '@forms/schemas';
import type { GatewayConfig } from '../config.ts';

/**
 * A browser's own form post (JavaScript off) to a form whose challenge is `required`, without a token: no
 * widget ran, so none could be there. The worker's judge holds it (`challenge:plain-form-no-token`); what the
 * person meets is decided here, before the answer and for free: the gateway's own page saying it was
 * received and waits for a person's review, with the address to write to if it is urgent, instead of a
 * thank-you page that would promise it reached the team (docs/site-forms.md#challenges). An agent is asked
 * no challenge; a `scored` form counts the missing token half and answers as usual.
 */
export function plainFormWithoutToken(
  required: GatewayConfig['requiredChallenge'],
  kind: SubmissionKind,
  body: unknown,
  agent: string | undefined,
): boolean {
  if (!required || agent || !required.kinds.has(kind)) return false;
  const token = (body as Record<string, unknown>)[required.tokenField];
  return !(typeof token === 'string' && token.trim() !== '');
}
