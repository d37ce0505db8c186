import { findHeld, quarantineKeys } from '@forms/quarantine';
import { RECORD_INDEX_MAX, type RedisSettings, recordIndexKey, submissionKeys } from '@forms/schemas';
import type { Job, Queue } from 'bullmq';
import type { OpsRedis } from './open-queue.ts';

/**
 * The jobs an id names (`submissionIdsFor`), those the queue still has, newest first. Empty when none.
 */
export async function findSubmissions(
  queue: Queue,
  redis: OpsRedis,
  settings: Pick<RedisSettings, 'prefix'>,
  id: string,
): Promise<Job[]> {
  const ids = await submissionIdsFor(queue, redis, settings, id);
  const jobs = await Promise.all(ids.map((submissionId) => queue.getJob(submissionId)));
  return jobs.filter((job): job is Job => job !== undefined);
}

/**
 * The submission ids an id names, as every command takes them: a submission id (`sub_…`, which the gateway
 * answers every accepted post with, held ones included) is itself; a contact's recordId (`con_…`, answered
 * to contact posts) names its delivered submissions (the worker's record index, newest first) and any held
 * one answered with it; anything else is read as an Idempotency-Key, naming the submission its first
 * request made (the gateway keeps the key a day). The id itself when nothing else is found.
 */
export async function submissionIdsFor(
  queue: Queue,
  redis: OpsRedis,
  settings: Pick<RedisSettings, 'prefix'>,
  id: string,
): Promise<string[]> {
  if (id.startsWith('sub_') || (await queue.getJob(id))) return [id];
  const indexed = await redis.zrevrange(recordIndexKey(queue.name, id), 0, RECORD_INDEX_MAX - 1);
  if (id.startsWith('con_')) {
    const held = await findHeld(redis, quarantineKeys(settings, queue.name), (payload) => {
      return (payload as { recordId?: unknown } | null)?.recordId === id;
    });
    const ids = [...held.map((h) => h.id), ...indexed];
    return ids.length > 0 ? [...new Set(ids)] : [id];
  }
  if (indexed.length > 0) return indexed;
  const first = await redis.hget(submissionKeys(settings, queue.name).idempotency(id), 's');
  return [first ?? id];
}
