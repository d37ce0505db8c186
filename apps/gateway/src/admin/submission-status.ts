import { scrubPii } from '@forms/observability';
import { RECORD_INDEX_MAX, recordIndexKey, type SubmissionStatus, toSubmissionStatus } from '@forms/schemas';
import type { Job, Queue } from 'bullmq';
import type { Cluster, Redis } from 'ioredis';
import { withRedisDeadline } from '../redis-deadline.ts';

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
        return status.lastError ? { ...status, lastError: scrubPii(status.lastError) } : status;
      }),
    ),
  );
}
