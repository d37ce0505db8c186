import { randomUUID } from 'node:crypto';
import { Queue } from 'bullmq';
import { Redis } from 'ioredis';
import { loadConfig } from './config.ts';
import { startGateway } from './start-gateway.ts';

export type TestGateway = {
  url: string;
  /** Every job the gateway added to its queue, whatever its state. */
  jobCount: () => Promise<number>;
  /** The job payloads' `data`, oldest first. */
  jobs: () => Promise<{ name: string; data: unknown }[]>;
  clearQueue: () => Promise<void>;
  stop: () => Promise<void>;
};

/**
 * For the gateway's own tests: a gateway on a free port, on the test Redis under a queue of its own, with
 * a view of that queue so a test can prove that nothing was enqueued.
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
