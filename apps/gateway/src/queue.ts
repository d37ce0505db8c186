import { Queue } from 'bullmq';
import { Redis } from 'ioredis';
import { JOB_OPTIONS, jobNameFor, type JobPayload, type SubmissionKind } from '@forms/schemas';
import { ApiError } from './errors.ts';

/** Seconds a client is told to wait when Redis cannot take a submission. */
export const QUEUE_RETRY_AFTER_SECONDS = 5;

/**
 * The producer's own connection fails fast: no offline queue, one try per command, a short connect
 * timeout. An outage then answers 503 at once instead of hanging requests; reconnects go on in the
 * background, so submissions flow again as soon as Redis is back.
 */
export function createProducerRedis(url: string): Redis {
  return new Redis(url, {
    enableOfflineQueue: false,
    maxRetriesPerRequest: 1,
    connectTimeout: 1_000,
    retryStrategy: (times) => Math.min(times * 100, 1_000),
  });
}

export function createSubmissionQueue(name: string, redis: Redis): Queue {
  return new Queue(name, { connection: redis });
}

/** Rejects with QUEUE_UNAVAILABLE when `work` has not settled within `ms`, or failed. */
export async function withQueueDeadline<T>(work: Promise<T>, ms: number): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  const deadline = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new Error(`Redis did not answer within ${ms} ms`)), ms);
  });
  try {
    return await Promise.race([work, deadline]);
  } catch (cause) {
    work.catch(() => {}); // a late rejection must not become an unhandled one
    throw Object.assign(
      new ApiError('QUEUE_UNAVAILABLE', { headers: { 'Retry-After': String(QUEUE_RETRY_AFTER_SECONDS) } }),
      { cause },
    );
  } finally {
    clearTimeout(timer);
  }
}

/** Adds the job and resolves only once Redis has confirmed it. The job's key is the submission id. */
export async function enqueueSubmission<K extends SubmissionKind>(
  queue: Queue,
  payload: JobPayload<`${K}.v1`>,
  timeoutMs: number,
): Promise<void> {
  await withQueueDeadline(
    queue.add(jobNameFor(payload.kind), payload, { ...JOB_OPTIONS, jobId: payload.submissionId }),
    timeoutMs,
  );
}
