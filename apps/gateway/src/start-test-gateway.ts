import { randomUUID } from 'node:crypto';
import { Queue } from 'bullmq';
import { Redis } from 'ioredis';
import { loadConfig } from './config.ts';
import { startGateway } from './start-gateway.ts';
import type { AbuseCounters } from './submissions/index.ts';

export type TestGateway = {
  url: string;
  /** The gateway's own queue, and a connection to its Redis, for a test to look at what it stored. */
  queueName: string;
  queue: Queue;
  redis: Redis;
  counters: AbuseCounters;
  /** Every job the gateway added to its queue, whatever its state. */
  jobCount: () => Promise<number>;
  /** The job payloads' `data`, oldest first. */
  jobs: () => Promise<{ name: string; data: unknown }[]>;
  clearQueue: () => Promise<void>;
  stop: () => Promise<void>;
};

/**
 * For tests: a gateway in this process on a free port, on the test Redis under a queue of its own, with
 * a view of that queue so a test can prove what was enqueued, or that nothing was. `env` adds to or
 * overrides the configuration (TRUST_PROXY, RATE_LIMIT_REQUESTS, ...).
 */
export async function startTestGateway(redisUrl: string, env: Record<string, string> = {}): Promise<TestGateway> {
  const queueName = `gw-${randomUUID()}`;
  const gateway = await startGateway(
    loadConfig({
      PORT: '0',
      HOST: '127.0.0.1',
      REDIS_URL: redisUrl,
      QUEUE_NAME: queueName,
      LOG_LEVEL: 'silent',
      PUBLIC_BASE_URL: 'https://forms.example',
      ...env,
    }),
  );
  const redis = new Redis(redisUrl, { maxRetriesPerRequest: null });
  const queue = new Queue(queueName, { connection: redis });
  return {
    url: gateway.url,
    queueName,
    queue,
    redis,
    counters: gateway.counters,
    async jobCount() {
      const counts = await queue.getJobCounts('waiting', 'active', 'completed', 'failed', 'delayed', 'prioritized');
      return Object.values(counts).reduce((a, b) => a + b, 0);
    },
    async jobs() {
      const jobs = await queue.getJobs(['waiting', 'active', 'completed', 'failed', 'delayed', 'prioritized']);
      return jobs.reverse().map((job) => ({ name: job.name, data: (job.data as { data: unknown }).data }));
    },
    async clearQueue() {
      await queue.obliterate({ force: true });
    },
    async stop() {
      await gateway.stop();
      await queue.obliterate({ force: true });
      await queue.close();
      redis.disconnect();
    },
  };
}
