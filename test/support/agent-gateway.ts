import { randomUUID } from 'node:crypto';
import { loadConfig, type RunningGateway, startGateway } from '@forms/gateway';
import { freePort } from '@forms/local-services';
import { Queue } from 'bullmq';
import { Redis } from 'ioredis';

/**
 * A gateway on a free port whose PUBLIC_BASE_URL is its own address, so the links in discovery files,
 * MCP resources and widgets point back at it. `stop` also removes the test's queue from Redis.
 */
export async function startAgentGateway(redisUrl: string, env: Record<string, string> = {}): Promise<RunningGateway> {
  const port = await freePort();
  const queueName = `agent-${randomUUID()}`;
  const gateway = await startGateway(
    loadConfig({
      PORT: String(port),
      HOST: '127.0.0.1',
      PUBLIC_BASE_URL: `http://127.0.0.1:${port}`,
      CONTACT_EMAIL: 'partnerships@agency.test',
      REDIS_URL: redisUrl,
      QUEUE_NAME: queueName,
      LOG_LEVEL: 'silent',
      ...env,
    }),
  );
  return {
    ...gateway,
    async stop() {
      await gateway.stop();
      const redis = new Redis(redisUrl, { maxRetriesPerRequest: null });
      const queue = new Queue(queueName, { connection: redis });
      await queue.obliterate({ force: true });
      await queue.close();
      redis.disconnect();
    },
  };
}
