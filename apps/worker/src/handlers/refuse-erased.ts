import {
  type ErasedJobData,
  erasureKeys,
  erasureSubject,
  type JobPayload,
  type RedisSettings,
  submissionEmail,
} from '@forms/schemas';
import type { Job } from 'bullmq';
import type { WorkerRedis } from '../create-worker-redis.ts';

/** Answers whether a job's address was erased after the job was accepted (then it must not be written). */
export type ErasureCheck = (submission: JobPayload) => Promise<boolean>;

/**
 * The tombstone check every delivery makes before the CV step and any CRM driver: a job accepted before
 * its address was erased (queued, retried, stalled, replayed or released from the quarantine later) is
 * refused. A submission accepted after the erase is a new, consented one and goes through. One GET per job.
 *
 * Without ERASURE_KEY the worker cannot compute a tombstone's name: once any erase is recorded it throws
 * (a retryable error naming the setting), so jobs wait instead of writing an erased person back.
 */
export function createErasureCheck({
  redis,
  settings,
  queueName,
  secret,
}: {
  redis: WorkerRedis;
  settings: Pick<RedisSettings, 'prefix'>;
  queueName: string;
  secret: string | undefined;
}): ErasureCheck {
  const keys = erasureKeys(settings, queueName);
  return async function isErased(submission) {
    if (!secret) {
      if ((await redis.exists(keys.anyErasure)) === 0) return false;
      throw new Error('An erasure is recorded but ERASURE_KEY is not set: this worker cannot check tombstones');
    }
    const erasedAt = await redis.get(keys.tombstone(erasureSubject(secret, submissionEmail(submission))));
    return erasedAt !== null && Date.parse(submission.acceptedAt) <= Number(erasedAt);
  };
}

/** Blanks a refused job's payload, so the completed job it becomes holds nothing of the person. */
export async function blankErasedJob(job: Job, submission: JobPayload): Promise<void> {
  const { submissionId, recordId, kind, acceptedAt } = submission;
  const blank: ErasedJobData = { v: 1, submissionId, recordId, kind, acceptedAt, erased: true };
  await job.updateData(blank);
}
