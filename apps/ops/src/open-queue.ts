import { clusterNodeOptions, type RedisSettings } from '@forms/schemas';
import { Queue } from 'bullmq';
import { Cluster, Redis } from 'ioredis';
import type { OpsConfig } from './config.ts';

/** The CLI's Redis: one server, or a cluster (BullMQ takes either; every key we read is slot-safe). */
export type OpsRedis = Redis | Cluster;

export type OpenQueue = { queue: Queue; redis: OpsRedis; close: () => Promise<void> };

/**
 * The CLI's connection: BullMQ's own Queue on one ioredis client (a Cluster client on a cluster), no layer
 * between. It fails fast (a few reconnects, then the command fails with exit 1) rather than hanging an
 * operator's terminal.
 */
export async function openQueue(config: OpsConfig): Promise<OpenQueue> {
  const redis = connect(config.redis);
  redis.on('error', () => {}); // reported by the command that fails
  await redis.connect().catch((err: Error) => {
    redis.disconnect();
    const { from, todo } = config.redisOrigin;
    throw new Error(`could not reach Redis at ${where(config.redis)} (from ${from}): ${err.message}\n${todo}.`);
  });
  const queue = new Queue(config.queueName, { connection: redis, prefix: config.redis.prefix });
  return {
    queue,
    redis,
    async close() {
      await queue.close();
      redis.disconnect();
    },
  };
}

function connect(settings: RedisSettings): OpsRedis {
  const options = { maxRetriesPerRequest: 1, connectTimeout: 3_000, lazyConnect: true };
  const retry = (times: number) => (times > 3 ? null : 250);
  if (settings.mode === 'single') return new Redis(settings.url, { ...options, retryStrategy: retry });
  return new Cluster([...settings.nodes], {
    lazyConnect: true,
    clusterRetryStrategy: retry,
    redisOptions: {
      ...options,
      ...clusterNodeOptions(settings),
    },
  });
}

/** Where the CLI looked, for an error message: never a password. */
function where(settings: RedisSettings): string {
  if (settings.mode === 'single') return withoutPassword(settings.url);
  return `the cluster at ${settings.nodes.map((n) => `${n.host}:${n.port}`).join(',')}`;
}

function withoutPassword(url: string): string {
  return url.replace(/\/\/([^@/]*)@/, '//***@');
}
