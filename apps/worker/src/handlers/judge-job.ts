import type { Quarantine } from '@forms/quarantine';
import { endpointFor, type JobPayload, submissionEmail } from '@forms/schemas';
import { countVerdict, freeTexts, type SpamCounters } from '@forms/spam-filter';
import type { Job } from 'bullmq';
import { holds, type SpamJudge } from '../spam/judge-submission.ts';

export type JudgeDeps = {
  judge: SpamJudge;
  /** The quarantine's hold (@forms/quarantine): the same script the gateway's honeypot holds with. */
  hold: Quarantine;
  counters: SpamCounters;
};

/** What a job the judge held completes with: nothing was written to the CRM. */
export type HeldResult = { held: true };

/**
 * The judge, after the answer and before the CRM: a job the gateway queued with judge inputs (`judge`) is
 * judged once. Held: kept in the quarantine with its reasons (and, with Akismet on, the client for ops'
 * later teaching), exactly as the gateway held it before. Either way the verdict is kept on the job in the
 * inputs' place (`judgement`, without the client), so a retry after a CRM fault does not judge again and the
 * token, address and user agent leave Redis with the verdict. A job without inputs was judged already: by
 * an earlier attempt (its `judgement` says whether it was held), or by a gateway of the release before this
 * one (it queued only what it did not hold).
 * Answers the payload to deliver (with its `judgement`), or undefined when held.
 */
export async function judgeJob(job: Job, payload: JobPayload, deps: JudgeDeps): Promise<JobPayload | undefined> {
  const { judge: inputs, ...rest } = payload;
  if (!inputs) {
    if (!payload.judgement || !holds(payload.judgement.reasons)) return payload;
    // Held by an attempt that stopped before it completed: the hold keeps its first copy.
    await deps.hold(rest, payload.judgement);
    return undefined;
  }
  const emailField = endpointFor(payload.kind).emailField;
  const verdict = await deps.judge({
    ...inputs,
    kind: payload.kind,
    email: submissionEmail(payload),
    texts: freeTexts(payload.data, emailField),
  });
  const { spam, client, ...judgement } = verdict;
  const judged = { ...rest, judgement } as JobPayload;
  if (spam) await deps.hold(rest as JobPayload, client ? { ...judgement, client } : judgement);
  await job.updateData(judged);
  countVerdict(deps.counters, verdict);
  return spam ? undefined : judged;
}
