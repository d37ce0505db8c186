import { scrubPii } from '@forms/observability';
import { RECORD_INDEX_MAX, recordIndexKey, type SubmissionStatus, toSubmissionStatus } from '@forms/schemas';
import type { Job, Queue } from 'bullmq';
import type { Cluster, Redis } from 'ioredis';
import { withRedisDeadline } from '../redis-deadline.ts';

/** Our ids: `sub_` or `con_` and a lower-case ULID (Crockford base32: no i, l, o, u), as `newId` makes them. */
const ID_SHAPE = /^(sub|con)_[0-9a-hjkmnp-tv-z]{26}$/;

/** True for a string shaped like a submission id or a contact's recordId, the only ids the status route looks up. */
export function isSubmissionIdShape(id: string): boolean {
  return ID_SHAPE.test(id);
}

/**
 * A submission's status for support, by submission id (the job's key) or by recordId (a contact's
 * submissions through the worker's record index; every other kind's recordId is its submission id).
 * Newest first. No payload: support reads state, not personal data; the error is scrubbed.
 */
export async function submissionStatus(
  { queue, redis, timeoutMs }: { queue: Queue; redis: Redis | Cluster; timeoutMs: number },
  id: string,
): Promise<SubmissionStatus[]> {
  const within = <T>(work: Promise<T>) => withRedisDeadline(work, timeoutMs);
  let jobs: Job[];
  const direct = await within(queue.getJob(id));
  if (direct) jobs = [direct];
  else {
    const ids = await within(redis.zrevrange(recordIndexKey(queue.name, id), 0, RECORD_INDEX_MAX - 1));
    jobs = (await within(Promise.all(ids.map((submissionId) => queue.getJob(submissionId))))).filter(
      (job): job is Job => job !== undefined,
    );
  }
  return within(
    Promise.all(
      jobs.map(async (job) => {
        const status = toSubmissionStatus(job, await job.getState());
        return status.lastError
          ? { ...status, lastError: scrubPii(status.lastError, (job.data as { data?: unknown } | undefined)?.data) }
          : status;
      }),
    ),
  );
}
