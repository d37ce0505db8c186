import {
  CHALLENGE_TOKEN_FIELDS,
  type JudgeInputOnJob,
  type SpamJudgement,
  type SpamReason,
  type SubmissionKind,
} from '@forms/schemas';
import type { SpamRules } from '@forms/spam-filter';
import { type AkismetSettings, akismetCall, countIn, type FilterFlag, type SpamCounters } from '@forms/spam-filter';
import type { Logger } from 'pino';
import { checkRules } from './check-rules.ts';
import { type ChallengeSettings, verifyChallenge } from './verify-challenge.ts';

/** A verdict: held (spam) or not, and why. */
export type Verdict = SpamJudgement & { spam: boolean };

/**
 * One submission, as the spam layers see it: what the gateway carried on the job for the judge (the token,
 * the client's address and user agent, the agent's name: JudgeInputSchema), and the job's own kind, email and
 * free text (the honeypot was decided by the gateway, before the answer).
 */
export type JudgeInput = JudgeInputOnJob & {
  kind: SubmissionKind;
  /** The lower-cased email. */
  email: string;
  /** The free-text fields: every string the submission holds but the email. */
  texts: string[];
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
 * The judge: a submission in, a verdict with reasons out, run by the worker before the CRM write. The layers
 * run in order, cheapest first: the rules and the content filter in memory; then the network layers, at
 * once, each bounded by its deadline and skipped when the in-memory layers already hold the submission: the
 * provider's siteverify when the form kind asks for a challenge (and the sender is not an agent), and Akismet
 * when configured. Without either the verdict is returned synchronously.
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
      spam: holds(reasons),
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
    const reasons: SpamReason[] = checkRules(kindRules, input.email, input.texts);
    const score = filter?.score(input.texts, input.email);
    const flag = score === undefined ? undefined : filter?.flag(score);
    if (flag) reasons.push(flag);
    // The challenge, when the form asks for one and the sender is not an agent: a missing token is known
    // here, without a call; a token to verify is the network's.
    let toVerify: { token: string; weight: number } | undefined;
    if (kindRules.challenge !== 'off' && challenge && !input.agent) {
      const weight = kindRules.challenge === 'required' ? 1 : 0.5;
      // Only a token in this provider's field: another's is as good as none, as when the gateway judged.
      const token = input.token?.field === CHALLENGE_TOKEN_FIELDS[challenge.provider] ? input.token.value : undefined;
      if (token) toVerify = { token, weight };
      else
        reasons.push({ layer: 'challenge', code: input.plainForm ? 'plain-form-no-token' : 'missing-token', weight });
    }
    // The network layers only when asked for, and only for what the in-memory ones did not hold already.
    if (holds(reasons) || (!toVerify && !(akismet && input.ip))) return decide(input, reasons, score);
    return judgeRemotely(input, reasons, score, toVerify);
  };
}

/** True when the reasons' weights add up to 1: the submission is held. */
export function holds(reasons: readonly SpamReason[]): boolean {
  return reasons.reduce((sum, r) => sum + r.weight, 0) >= 1;
}
