import { findHeld, quarantineKeys, readHeld } from '@forms/quarantine';
import { contactId, type SpamJudgement } from '@forms/schemas';
import { findJobs, holdsAddress } from '@forms/worker';
import type { Job, Queue } from 'bullmq';
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
  config: Pick<OpsConfig, 'idKey' | 'redis' | 'queueName'>,
  email: string,
): Promise<{ jobs: Job[]; held: HeldSubmission[] }> {
  const keys = quarantineKeys(config.redis, config.queueName);
  const [byContact, byPayload, quarantined] = await Promise.all([
    findSubmissions(queue, redis, config.redis, contactId(config.idKey ?? '', email)),
    findJobs(queue, email),
    findHeld(redis, keys, (payload) => holdsAddress(payload, email)),
  ]);
  const jobs = new Map<string, Job>();
  for (const job of [...byContact, ...byPayload.map((found) => found.job)]) jobs.set(String(job.id), job);
  const read = await readHeld(
    redis,
    keys,
    quarantined.map((q) => q.id),
  );
  const held = quarantined.map(({ id, payload }) => ({ id, payload, judgement: read.get(id)?.judgement }));
  return { jobs: [...jobs.values()].sort((a, b) => b.timestamp - a.timestamp), held };
}
