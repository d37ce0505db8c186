import { RECORD_INDEX_MAX, recordIndexKey } from '@forms/schemas';
import type { Job, Queue } from 'bullmq';
import type { OpsRedis } from './open-queue.ts';

/**
 * The jobs an id names: the one job when it is a submission id (the job's key), else the submissions the
 * record index holds for a contact's recordId, newest first. Empty when neither finds anything.
 */
export async function findSubmissions(queue: Queue, redis: OpsRedis, id: string): Promise<Job[]> {
  const direct = await queue.getJob(id);
  if (direct) return [direct];
  const ids = await redis.zrevrange(recordIndexKey(queue.name, id), 0, RECORD_INDEX_MAX - 1);
  const jobs = await Promise.all(ids.map((submissionId) => queue.getJob(submissionId)));
  return jobs.filter((job): job is Job => job !== undefined);
}
