import {
  type ErasedJobData,
  erasureKeys,
  erasureSubject,
  type JobPayload,
  type RedisSettings,
  secretCheckValue,
  sharedSecretKeys,
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
 * (a retryable error naming the setting), so jobs wait instead of writing an erased person back. With a key
 * that differs from the recorded one (`sharedSecretKeys`), the tombstones it would look for are not the ones
 * the erases wrote: it throws alike, whether or not an erase is recorded yet. The recorded check value is
 * read in the same round trip as the tombstone (one MGET, one slot), so a rekey is seen at the next job.
 * In a rotation window (ERASURE_KEY_PREVIOUS) a tombstone under either key refuses the job.
 */
export function createErasureCheck({
  redis,
  settings,
  queueName,
  secret,
  previousSecret,
}: {
  redis: WorkerRedis;
  settings: Pick<RedisSettings, 'prefix'>;
  queueName: string;
  secret: string | undefined;
  /** ERASURE_KEY_PREVIOUS, in a rotation window. */
  previousSecret?: string | undefined;
}): ErasureCheck {
  const keys = erasureKeys(settings, queueName);
  const checkKey = sharedSecretKeys(settings, queueName, 'ERASURE_KEY').check;
  const secrets = secret ? [secret, ...(previousSecret ? [previousSecret] : [])] : [];
  const ours = secrets.map((key) => secretCheckValue('ERASURE_KEY', key));
  return async function isErased(submission) {
    if (!secret) {
      if ((await redis.exists(keys.anyErasure)) === 0) return false;
      throw new Error('An erasure is recorded but ERASURE_KEY is not set: this worker cannot check tombstones');
    }
    const email = submissionEmail(submission);
    const [recorded, ...erasedAts] = await redis.mget(
      checkKey,
      ...secrets.map((key) => keys.tombstone(erasureSubject(key, email))),
    );
    if (recorded && !ours.includes(recorded))
      throw new Error(
        'ERASURE_KEY differs from the one recorded in Redis: this worker cannot find the tombstones, so it holds every delivery',
      );
    const acceptedAt = Date.parse(submission.acceptedAt);
    return erasedAts.some((erasedAt) => erasedAt !== null && acceptedAt <= Number(erasedAt));
  };
}

/** Blanks a refused job's payload, so the completed job it becomes holds nothing of the person. */
export async function blankErasedJob(job: Job, submission: JobPayload): Promise<void> {
  const { submissionId, recordId, kind, acceptedAt } = submission;
  const blank: ErasedJobData = { v: 1, submissionId, recordId, kind, acceptedAt, erased: true };
  await job.updateData(blank);
}
