import type { ChallengeProvider } from '@forms/schemas';
import { postForm } from '@forms/spam-filter';

/** Each provider's documented siteverify endpoint (CHALLENGE_VERIFY_URL replaces it, for tests). */
export const SITEVERIFY_URLS: Record<ChallengeProvider, string> = {
  turnstile: 'https://challenges.cloudflare.com/turnstile/v0/siteverify',
  hcaptcha: 'https://api.hcaptcha.com/siteverify',
  recaptcha: 'https://www.google.com/recaptcha/api/siteverify',
};

export type ChallengeSettings = Readonly<{
  provider: ChallengeProvider;
  secret: string;
  verifyUrl: string;
  /** The deadline of one siteverify call; past it the layer abstains (docs/site-forms.md#challenges). */
  timeoutMs: number;
  /** reCAPTCHA v3: a score below this fails (v2 answers carry no score). */
  minScore: number;
}>;

/** The submitter's fault: the token is missing, made up, expired, spent, or scored as a bot. */
const REFUSALS = new Set([
  'missing-input-response',
  'invalid-input-response',
  'timeout-or-duplicate',
  'expired-input-response',
  'already-seen-response',
  'invalid-or-already-seen-response',
]);

/**
 * What siteverify said: `passed`, `failed` with the provider's error code (one of REFUSALS, or `low-score`),
 * or `unavailable` when it could not say: down, slow past the deadline, an answer that is not its documented
 * JSON, or an error that is ours (a wrong secret, a bad request), never the submitter's.
 */
export type ChallengeOutcome =
  | { passed: true; score?: number | undefined }
  | { passed: false; code: string; score?: number | undefined }
  | { unavailable: string };

/**
 * One siteverify call as every provider documents it: a form-encoded POST of `secret`, `response` (the
 * token) and `remoteip`; a JSON answer `{success, "error-codes", score?, …}`. Bounded by `timeoutMs`.
 */
export async function verifyChallenge(
  settings: ChallengeSettings,
  token: string,
  remoteIp: string | undefined,
): Promise<ChallengeOutcome> {
  const form = new URLSearchParams({ secret: settings.secret, response: token });
  if (remoteIp) form.set('remoteip', remoteIp);
  const res = await postForm(settings.verifyUrl, form, settings.timeoutMs);
  if ('unavailable' in res) return res;
  let answer: { success?: unknown; 'error-codes'?: unknown; score?: unknown };
  try {
    answer = JSON.parse(res.text) as typeof answer;
  } catch {
    return { unavailable: 'bad-answer' };
  }
  if (typeof answer?.success !== 'boolean') return { unavailable: 'bad-answer' };
  const score = typeof answer.score === 'number' ? answer.score : undefined;
  if (answer.success) {
    if (settings.provider === 'recaptcha' && score !== undefined && score < settings.minScore)
      return { passed: false, code: 'low-score', score };
    return { passed: true, score };
  }
  const codes = Array.isArray(answer['error-codes']) ? answer['error-codes'].map(String) : [];
  const refusal = codes.find((code) => REFUSALS.has(code));
  if (refusal) return { passed: false, code: refusal, score };
  return { unavailable: codes[0] ?? 'rejected-without-a-code' };
}
