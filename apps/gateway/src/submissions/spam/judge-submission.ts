import type { SpamJudgement, SpamReason, SubmissionKind } from '@forms/schemas';
import { type AkismetSettings, akismetCall, type FilterFlag } from '@forms/spam-filter';
import type { Logger } from 'pino';
import { honeypotFilled } from '../honeypot.ts';
import { checkRules } from './check-rules.ts';
import { countIn, type SpamCounters } from './spam-counters.ts';
import type { SpamRules } from './spam-settings.ts';
import { CHALLENGE_TOKEN_FIELDS, type ChallengeSettings, verifyChallenge } from './verify-challenge.ts';

/** A verdict: held (spam) or not, and why. */
export type Verdict = SpamJudgement & { spam: boolean };

/** One submission, as the spam layers see it. */
export type JudgeInput = {
  kind: SubmissionKind;
  /** The raw body: the honeypot field and the challenge token are read from it (validation drops both). */
  body: unknown;
  /** The lower-cased email. */
  email: string;
  /** The free-text fields: every string the parsed request holds but the email. */
  texts: string[];
  /** The client's address, sent to siteverify as `remoteip`. */
  ip: string | undefined;
  /** The name an agent declared (`Forms-Agent` header): the challenge is not asked of it. */
  agent: string | undefined;
  /** The client's User-Agent header, for Akismet. */
  userAgent?: string | undefined;
  /**
   * A browser's own form post (JavaScript off: no widget ran, so no token can be in it): a missing token is
   * then `plain-form-no-token`, not `missing-token` (docs/site-forms.md#challenges).
   */
  plainForm?: boolean | undefined;
};

/**
 * The content filter: a spam score for the texts and the sender's address (undefined when they hold too little
 * to judge), and the flag a score raises (packages/spam-filter's filterFlag: spam, unsure, or none).
 */
export type ContentFilter = {
  score(texts: readonly string[], email: string): number | undefined;
  flag(score: number): FilterFlag | undefined;
};

export type SpamJudge = ReturnType<typeof createSpamJudge>;

/**
 * The spam defence's one entry: a submission in, a verdict with reasons out. The layers run in order,
 * cheapest first: the honeypot, the rules and the content filter in memory; then the network layers, at once,
 * each bounded by its deadline and skipped when the in-memory layers already hold the submission: the
 * provider's siteverify when the form kind asks for a challenge (and the sender is not an agent), and Akismet
 * when configured. Without either the verdict is returned synchronously: the ack path awaits nothing it did
 * not await before.
 * A submission is spam when its reasons' weights add up to 1.
 */
export function createSpamJudge({
  rules,
  challenge,
  filter,
  akismet,
  counters,
  logger,
}: {
  rules: Readonly<Record<SubmissionKind, SpamRules>>;
  challenge: ChallengeSettings | undefined;
  akismet?: AkismetSettings | undefined;
  filter: ContentFilter | undefined;
  counters: SpamCounters;
  logger?: Logger | undefined;
}) {
  function decide(input: JudgeInput, reasons: SpamReason[], score: number | undefined): Verdict {
    return {
      spam: adds(reasons),
      reasons,
      ...(score !== undefined ? { score: Math.round(score * 1e4) / 1e4 } : {}),
      ...(input.agent ? { agent: input.agent } : {}),
      ...(akismet && input.ip
        ? { client: { ip: input.ip, ...(input.userAgent ? { userAgent: input.userAgent } : {}) } }
        : {}),
    };
  }

  async function challengeReasons(
    input: JudgeInput,
    settings: ChallengeSettings,
    token: string,
    weight: number,
  ): Promise<SpamReason[]> {
    const outcome = await verifyChallenge(settings, token, input.ip);
    if ('unavailable' in outcome) {
      // Down, slow, or our own misconfiguration: abstain. A person must not lose a submission to the
      // provider's outage; the content layers still judge it (docs/site-forms.md#challenges).
      countIn(counters.unavailable, 'challenge');
      logger?.warn(
        { provider: settings.provider, cause: outcome.unavailable },
        'challenge not verified: layer abstained',
      );
      return [];
    }
    if (outcome.passed) return [];
    const detail = outcome.score !== undefined ? { detail: `score ${outcome.score} < ${settings.minScore}` } : {};
    return [{ layer: 'challenge', code: outcome.code, ...detail, weight }];
  }

  async function akismetReasons(input: JudgeInput, settings: AkismetSettings, ip: string): Promise<SpamReason[]> {
    const outcome = await akismetCall(settings, 'comment-check', {
      ip,
      userAgent: input.userAgent,
      email: input.email,
      content: input.texts.join('\n'),
    });
    if ('unavailable' in outcome) {
      countIn(counters.unavailable, 'akismet');
      logger?.warn({ cause: outcome.unavailable }, 'akismet did not answer: layer abstained');
      return [];
    }
    return outcome.spam ? [{ layer: 'akismet', code: outcome.discard ? 'spam-discard' : 'spam', weight: 1 }] : [];
  }

  async function judgeRemotely(
    input: JudgeInput,
    reasons: SpamReason[],
    score: number | undefined,
    toVerify: { token: string; weight: number } | undefined,
  ): Promise<Verdict> {
    // Both providers at once: the verdict waits for the slower, each bounded by its own deadline.
    const [fromChallenge, fromAkismet] = await Promise.all([
      toVerify && challenge ? challengeReasons(input, challenge, toVerify.token, toVerify.weight) : [],
      akismet && input.ip ? akismetReasons(input, akismet, input.ip) : [],
    ]);
    reasons.push(...fromChallenge, ...fromAkismet);
    return decide(input, reasons, score);
  }

  return function judgeSubmission(input: JudgeInput): Verdict | Promise<Verdict> {
    const kindRules = rules[input.kind];
    const reasons: SpamReason[] = [];
    if (honeypotFilled(input.body)) reasons.push({ layer: 'honeypot', code: 'filled', weight: 1 });
    reasons.push(...checkRules(kindRules, input.email, input.texts));
    const score = filter?.score(input.texts, input.email);
    const flag = score === undefined ? undefined : filter?.flag(score);
    if (flag) reasons.push(flag);
    // The challenge, when the form asks for one and the sender is not an agent: a missing token is known
    // here, without a call; a token to verify is the network's.
    let toVerify: { token: string; weight: number } | undefined;
    if (kindRules.challenge !== 'off' && challenge && !input.agent) {
      const weight = kindRules.challenge === 'required' ? 1 : 0.5;
      const token = (input.body as Record<string, unknown>)[CHALLENGE_TOKEN_FIELDS[challenge.provider]];
      if (typeof token === 'string' && token.trim() !== '') toVerify = { token: token.trim(), weight };
      else
        reasons.push({ layer: 'challenge', code: input.plainForm ? 'plain-form-no-token' : 'missing-token', weight });
    }
    // The network layers only when asked for, and only for what the in-memory ones did not hold already.
    if (adds(reasons) || (!toVerify && !(akismet && input.ip))) return decide(input, reasons, score);
    return judgeRemotely(input, reasons, score, toVerify);
  };
}

/**
 * A keyed retry whose first attempt was not confirmed: its token was spent by that attempt, so the provider's
 * "used before" is no mark against it (the rest of the verdict stands).
 */
export function forgiveSpentToken(verdict: Verdict): Verdict {
  const reasons = verdict.reasons.filter((r) => !(r.layer === 'challenge' && /duplicate|already-seen/.test(r.code)));
  if (reasons.length === verdict.reasons.length) return verdict;
  return { ...verdict, reasons, spam: adds(reasons) };
}

/** Counts a verdict the request path acted on (after forgiveSpentToken), for the metrics. */
export function countVerdict(counters: SpamCounters, verdict: Verdict): void {
  countIn(counters.verdicts, `${verdict.spam ? 'spam' : 'ham'} ${verdict.agent ? 'agent' : 'person'}`);
  if (verdict.spam) for (const r of verdict.reasons) countIn(counters.reasons, `${r.layer} ${r.code}`);
}

function adds(reasons: readonly SpamReason[]): boolean {
  return reasons.reduce((sum, r) => sum + r.weight, 0) >= 1;
}
