import { envChallengeProvider, envInt, type SubmissionKind } from '@forms/schemas';
import {
  AKISMET_ENV_ENTRIES,
  type AkismetSettings,
  akismetSettings,
  loadSpamRules,
  type SpamRules,
} from '@forms/spam-filter';
import * as v from 'valibot';
import { DEFAULT_FILTER_THRESHOLD } from './content-filter.ts';
import { type ChallengeSettings, SITEVERIFY_URLS } from './verify-challenge.ts';

const url = v.pipe(v.string(), v.url('must be a URL'));

/** The judge's variables (read by the worker, which judges each submission before its CRM write). */
export const SPAM_ENV_ENTRIES = {
  PUBLIC_BASE_URL: v.optional(url),
  QUARANTINE_DAYS: v.optional(envInt, '30'),
  QUARANTINE_MAX: v.optional(envInt, '10000'),
  SPAM_RULES_FILE: v.optional(v.string()),
  CHALLENGE_PROVIDER: envChallengeProvider,
  CHALLENGE_SECRET: v.optional(v.string()),
  CHALLENGE_VERIFY_URL: v.optional(url),
  CHALLENGE_TIMEOUT_MS: v.optional(envInt, '2000'),
  CHALLENGE_MIN_SCORE: v.optional(
    v.pipe(v.string(), v.regex(/^(0(\.\d+)?|1(\.0+)?)$/, 'must be a number from 0 to 1'), v.transform(Number)),
    '0.5',
  ),
  ...AKISMET_ENV_ENTRIES,
  SPAM_FILTER: v.optional(v.picklist(['on', 'off'], 'must be on or off'), 'on'),
  SPAM_FILTER_THRESHOLD: v.optional(
    v.pipe(v.string(), v.regex(/^0\.\d+$/, 'must be a number between 0 and 1'), v.transform(Number)),
  ),
  SPAM_MODEL_REFRESH_SECONDS: v.optional(envInt, '30'),
};

export type SpamConfig = Readonly<{
  /** Each form kind's rules (SPAM_RULES_FILE over the defaults). */
  rules: Readonly<Record<SubmissionKind, SpamRules>>;
  /** The challenge provider, when one is configured (CHALLENGE_PROVIDER + CHALLENGE_SECRET). */
  challenge: ChallengeSettings | undefined;
  /** The learning content filter (SPAM_FILTER=on): the score that holds a submission, and how often the model is re-read. */
  filter: Readonly<{ threshold: number; refreshMs: number }> | undefined;
  /** Akismet's comment-check (AKISMET_API_KEY), asked about what the in-memory layers did not hold. */
  akismet: AkismetSettings | undefined;
  /** Held submissions kept for `ops spam`: how long, and how many at most (oldest dropped first). */
  quarantine: Readonly<{ maxAgeMs: number; maxCount: number }>;
}>;

type SpamEnv = v.InferOutput<v.ObjectSchema<typeof SPAM_ENV_ENTRIES, undefined>>;

/**
 * The rules file, read and checked now (a bad rule stops the start, named), and the challenge provider. A form
 * kind that asks for a challenge with no provider configured is a bad configuration, not a silent `off`.
 */
export function spamSettings(e: SpamEnv): SpamConfig {
  const rules = loadSpamRules(e.SPAM_RULES_FILE);
  if (e.CHALLENGE_PROVIDER && !e.CHALLENGE_SECRET)
    throw new Error('Invalid configuration: CHALLENGE_SECRET must be set with CHALLENGE_PROVIDER');
  const asking = Object.entries(rules).find(([, r]) => r.challenge !== 'off');
  if (asking && !e.CHALLENGE_PROVIDER)
    throw new Error(
      `Invalid configuration: SPAM_RULES_FILE ${e.SPAM_RULES_FILE}: ${asking[0]}.challenge is ${asking[1].challenge} but CHALLENGE_PROVIDER is not set`,
    );
  const challenge =
    e.CHALLENGE_PROVIDER && e.CHALLENGE_SECRET
      ? Object.freeze({
          provider: e.CHALLENGE_PROVIDER,
          secret: e.CHALLENGE_SECRET,
          verifyUrl: e.CHALLENGE_VERIFY_URL ?? SITEVERIFY_URLS[e.CHALLENGE_PROVIDER],
          timeoutMs: e.CHALLENGE_TIMEOUT_MS,
          minScore: e.CHALLENGE_MIN_SCORE,
        })
      : undefined;
  const filter =
    e.SPAM_FILTER === 'on'
      ? Object.freeze({
          threshold: e.SPAM_FILTER_THRESHOLD ?? DEFAULT_FILTER_THRESHOLD,
          refreshMs: e.SPAM_MODEL_REFRESH_SECONDS * 1000,
        })
      : undefined;
  // Akismet's `blog` defaults to the site's base URL (the gateway's default port when it is not set).
  const publicBaseUrl = (e.PUBLIC_BASE_URL ?? 'http://localhost:3000').replace(/\/$/, '');
  return Object.freeze({
    rules,
    challenge,
    filter,
    akismet: akismetSettings(e, publicBaseUrl),
    quarantine: Object.freeze({ maxAgeMs: e.QUARANTINE_DAYS * 86_400_000, maxCount: e.QUARANTINE_MAX }),
  });
}
