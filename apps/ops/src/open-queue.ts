import { Queue } from 'bullmq';
import { Redis } from 'ioredis';
import type { OpsConfig } from './config.ts';

export type OpenQueue = { queue: Queue; redis: Redis; close: () => Promise<void> };

/**
 * The CLI's connection: BullMQ's own Queue on one ioredis client, no layer between. It fails fast (a few
 * reconnects, then the command fails with exit 1) rather than hanging an operator's terminal.
 */
export async function openQueue(config: OpsConfig): Promise<OpenQueue> {
  const redis = new Redis(config.redisUrl, {
    maxRetriesPerRequest: 1,
    connectTimeout: 3_000,
    retryStrategy: (times) => (times > 3 ? null : 250),
    lazyConnect: true,
  });
  redis.on('error', () => {}); // reported by the command that fails
  await redis.connect().catch((err: Error) => {
    throw new Error(`could not reach Redis at ${withoutPassword(config.redisUrl)}: ${err.message}`);
  });
  const queue = new Queue(config.queueName, { connection: redis, prefix: config.prefix });
  return {
    queue,
    redis,
    async close() {
      await queue.close();
      redis.disconnect();
    },
  };
}

export function withoutPassword(url: string): string {
  return url.replace(/\/\/([^@/]*)@/, '//***@');
}
