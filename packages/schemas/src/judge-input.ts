import * as v from 'valibot';

/** The challenge providers, and the form field each one's widget adds to the form it protects. */
export const CHALLENGE_TOKEN_FIELDS = {
  turnstile: 'cf-turnstile-response',
  hcaptcha: 'h-captcha-response',
  recaptcha: 'g-recaptcha-response',
} as const;
export type ChallengeProvider = keyof typeof CHALLENGE_TOKEN_FIELDS;

const PROVIDERS = Object.keys(CHALLENGE_TOKEN_FIELDS) as ChallengeProvider[];
/** CHALLENGE_PROVIDER as the gateway and the worker read it: one of the providers above, or unset. */
export const envChallengeProvider = v.optional(
  v.picklist(PROVIDERS, `must be ${PROVIDERS.slice(0, -1).join(', ')} or ${PROVIDERS.at(-1)}`),
);

/**
 * What the worker's judge needs beside the submission itself (whose email and free text it reads from the
 * job's data), carried on a job the gateway queued unjudged: the request's facts that validation drops. The
 * worker drops it from the job with its verdict (docs/privacy.md#the-judge-inputs-on-a-job): it never reaches a CRM
 * or a log. A job without it was judged already (by a gateway of the release before, or by an earlier attempt).
 */
export const JudgeInputSchema = v.object({
  /** The challenge widget's token and the provider field it came in (the worker reads its provider's only). */
  token: v.optional(
    v.object({
      field: v.picklist(Object.values(CHALLENGE_TOKEN_FIELDS)),
      value: v.pipe(v.string(), v.maxLength(4096)),
    }),
  ),
  /** The client's address (the provider's `remoteip`, Akismet's `user_ip`). */
  ip: v.optional(v.pipe(v.string(), v.maxLength(64))),
  /** The User-Agent header, for Akismet. */
  userAgent: v.optional(v.pipe(v.string(), v.maxLength(1024))),
  /** The name an agent declared (`Forms-Agent` header): the challenge is not asked of it. */
  agent: v.optional(v.pipe(v.string(), v.maxLength(128))),
  /**
   * A browser's own form post (JavaScript off: no widget ran, so no token can be in it): a missing token is
   * then `plain-form-no-token`, not `missing-token` (docs/site-forms.md#challenges).
   */
  plainForm: v.optional(v.boolean()),
});
export type JudgeInputOnJob = v.InferOutput<typeof JudgeInputSchema>;

/**
 * The token a raw body carries in a provider's field, with the field (read before validation drops it): the
 * gateway needs no challenge settings, the worker reads the token of the provider it is configured with.
 */
export function challengeToken(body: unknown): JudgeInputOnJob['token'] {
  if (body === null || typeof body !== 'object') return undefined;
  for (const field of Object.values(CHALLENGE_TOKEN_FIELDS)) {
    const value = (body as Record<string, unknown>)[field];
    if (typeof value === 'string' && value.trim() !== '') return { field, value: value.trim().slice(0, 4096) };
  }
  return undefined;
}
