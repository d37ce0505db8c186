import { contactId, type SpamJudgement, SpamJudgementSchema } from '@forms/schemas';
import { findJobs, findQuarantined } from '@forms/worker';
import type { Job, Queue } from 'bullmq';
import * as v from 'valibot';
import type { OpsConfig } from './config.ts';
import { findSubmissions } from './find-submissions.ts';
import type { OpsRedis } from './open-queue.ts';

export type HeldSubmission = { id: string; payload: unknown; judgement: SpamJudgement | undefined };

/**
 * One person's submissions, by email (lower-cased, as the gateway keys them): the contact's, through the
 * record index under the contact's own id (`contactId` under ID_KEY, the derivation the gateway used, so a
 * plain form's post, which gets no recordId back, is found), every other job whose payload holds the address
 * (delivered, failed, waiting: what the queue still keeps), and what the quarantine holds of theirs, with its
 * reasons. The address is only compared, never written anywhere.
 */
export async function findPerson(
  queue: Queue,
  redis: OpsRedis,
  config: Pick<OpsConfig, 'idKey' | 'keys'>,
  email: string,
): Promise<{ jobs: Job[]; held: HeldSubmission[] }> {
  const [byContact, byPayload, quarantined] = await Promise.all([
    findSubmissions(queue, redis, contactId(config.idKey ?? '', email)),
    findJobs(queue, email),
    findQuarantined(redis, config.keys.spamData, email),
  ]);
  const jobs = new Map<string, Job>();
  for (const job of [...byContact, ...byPayload.map((found) => found.job)]) jobs.set(String(job.id), job);
  const held = await Promise.all(
    quarantined.map(async ({ id, payload }) => ({
      id,
      payload,
      judgement: parseJudgement(await redis.hget(config.keys.spamReasons, id)),
    })),
  );
  return { jobs: [...jobs.values()].sort((a, b) => b.timestamp - a.timestamp), held };
}

function parseJudgement(text: string | null): SpamJudgement | undefined {
  if (!text) return undefined;
  try {
    const parsed = v.safeParse(SpamJudgementSchema, JSON.parse(text));
    return parsed.success ? parsed.output : undefined;
  } catch {
    return undefined;
  }
}
