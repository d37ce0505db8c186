import { randomUUID } from 'node:crypto';
import { loadConfig, type RunningGateway, startGateway } from '@forms/gateway';
import { freePort } from '@forms/local-services';
import { Queue } from 'bullmq';
import { Redis } from 'ioredis';

export type TestGateway = RunningGateway & {
  /** The gateway's own queue, and a connection to its Redis, for a test to look at what it stored. */
  queueName: string;
  queue: Queue;
  redis: Redis;
  /** Every job the gateway added to its queue, whatever its state. */
  jobCount: () => Promise<number>;
  /** The job payloads' `data`, oldest first. */
  jobs: () => Promise<{ name: string; data: unknown }[]>;
  clearQueue: () => Promise<void>;
};

/**
 * The one gateway tests start in their own process: on a free 127.0.0.1 port, on `redisUrl` under a queue
 * of its own (the bullmq way: one queue per test), with a view of that queue so a test can prove what was
 * enqueued, or that nothing was. `env` adds to or overrides the configuration (TRUST_PROXY,
 * RATE_LIMIT_REQUESTS, QUEUE_NAME, ...).
 *
 * `selfBaseUrl`: PUBLIC_BASE_URL is the gateway's own address, so the links in discovery files, MCP
 * resources and widgets point back at it (else `https://forms.example`). `keepQueue`: `stop` leaves the
 * queue in Redis for workers started later (else it is removed).
 */
export async function startTestGateway(
  redisUrl: string,
  env: Record<string, string> = {},
  { selfBaseUrl = false, keepQueue = false }: { selfBaseUrl?: boolean; keepQueue?: boolean } = {},
): Promise<TestGateway> {
  const port = await freePort();
  const queueName = env.QUEUE_NAME ?? `gw-${randomUUID()}`;
  const gateway = await startGateway(
    loadConfig({
      PORT: String(port),
      HOST: '127.0.0.1',
      REDIS_URL: redisUrl,
      QUEUE_NAME: queueName,
      LOG_LEVEL: 'silent',
      PUBLIC_BASE_URL: selfBaseUrl ? `http://127.0.0.1:${port}` : 'https://forms.example',
      CONTACT_EMAIL: 'partnerships@agency.test',
      ...env,
    }),
  );
  const redis = new Redis(redisUrl, { maxRetriesPerRequest: null });
  const queue = new Queue(queueName, { connection: redis });
  return {
    ...gateway,
    queueName,
    queue,
    redis,
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
      if (!keepQueue) await queue.obliterate({ force: true });
      await queue.close();
      redis.disconnect();
    },
  };
}
