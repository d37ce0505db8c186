import { clusterNodeOptions, type RedisSettings } from '@forms/schemas';
import { Cluster, Redis } from 'ioredis';

/** The worker's Redis: one server, or a cluster (BullMQ takes either). */
export type WorkerRedis = Redis | Cluster;

/**
 * A cluster command is redirected (MOVED, ASK) or told to try again (TRYAGAIN while its slot migrates,
 * CLUSTERDOWN while a failover elects) up to this many times, 100 ms apart for the last two: about a
 * minute, where ioredis's default (16) gave up after 1.6 s. BullMQ treats a failed `moveToFinished` as the
 * job's own failure: during a slot move completions met `Too many Cluster redirections. Last error:
 * TRYAGAIN`, and the job was moved to its retry (an attempt spent) or, its lock gone, left to stall and be
 * delivered again (test/cluster/queue-slot-moved-under-load.test.ts counts both).
 */
const RIDE_THROUGH_REDIRECTIONS = 600;

/**
 * Every Redis connection the worker opens retries forever (`maxRetriesPerRequest: null`, which BullMQ's
 * Worker requires): a Redis restart or a cluster failover pauses deliveries instead of failing them. On a
 * cluster the slot map is refreshed every second so a promoted replica is found soon after a failover, and
 * a slot move or an election is waited out (`RIDE_THROUGH_REDIRECTIONS`) rather than failing a command.
 */
export function createWorkerRedis(settings: RedisSettings): WorkerRedis {
  if (settings.mode === 'single') return new Redis(settings.url, { maxRetriesPerRequest: null });
  return new Cluster([...settings.nodes], {
    clusterRetryStrategy: (times) => Math.min(times * 100, 2_000),
    slotsRefreshInterval: 1_000,
    maxRedirections: RIDE_THROUGH_REDIRECTIONS,
    retryDelayOnTryAgain: 100,
    retryDelayOnClusterDown: 100,
    redisOptions: {
      maxRetriesPerRequest: null,
      ...clusterNodeOptions(settings),
    },
  });
}
