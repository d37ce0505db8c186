import { clusterNodeOptions, type RedisSettings } from '@forms/schemas';
import { Cluster, Redis } from 'ioredis';

/** The worker's Redis: one server, or a cluster (BullMQ takes either). */
export type WorkerRedis = Redis | Cluster;

/**
 * Every Redis connection the worker opens retries forever (`maxRetriesPerRequest: null`, which BullMQ's
 * Worker requires): a Redis restart or a cluster failover pauses deliveries instead of failing them. On a
 * cluster the slot map is refreshed every second so a promoted replica is found soon after a failover.
 */
export function createWorkerRedis(settings: RedisSettings): WorkerRedis {
  if (settings.mode === 'single') return new Redis(settings.url, { maxRetriesPerRequest: null });
  return new Cluster([...settings.nodes], {
    clusterRetryStrategy: (times) => Math.min(times * 100, 2_000),
    slotsRefreshInterval: 1_000,
    redisOptions: {
      maxRetriesPerRequest: null,
      ...clusterNodeOptions(settings),
    },
  });
}
