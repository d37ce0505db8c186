import { randomUUID } from 'node:crypto';
import { loadConfig, type RunningWorker, startWorker } from '@forms/worker';
import { Queue } from 'bullmq';
import type { Logger } from 'pino';
import { inject } from 'vitest';
import type { FakeAirtable } from './airtable-server.ts';

/** What a worker needs to reach the local Airtable server `server` and the test Redis's queue `queueName`. */
export function airtableWorkerEnv(
  server: FakeAirtable,
  { apiKey, baseId, queueName }: { apiKey: string; baseId: string; queueName: string },
): Record<string, string> {
  return {
    REDIS_URL: inject('redisUrl'),
    QUEUE_NAME: queueName,
    AIRTABLE_API_KEY: apiKey,
    AIRTABLE_BASE_ID: baseId,
    AIRTABLE_ENDPOINT_URL: server.url,
  };
}

export type AirtableWorker = { worker: RunningWorker; queue: Queue; queueName: string; stop: () => Promise<void> };

/**
 * A worker in this process writing to the local Airtable server `server` (base `baseId`, token `apiKey`),
 * on the test Redis under a queue of its own, and a Queue on it to feed it. Retries start at 20 ms and
 * logs are off unless `env` or `logger` say otherwise; `env` adds to or overrides the rest (limits,
 * timeouts). `stop` stops the worker and removes the queue.
 */
export async function startAirtableWorker(
  server: FakeAirtable,
  {
    apiKey,
    baseId,
    env = {},
    logger,
  }: { apiKey: string; baseId: string; env?: Record<string, string>; logger?: Logger },
): Promise<AirtableWorker> {
  const queueName = `airtable-${randomUUID()}`;
  const config = loadConfig({
    ...airtableWorkerEnv(server, { apiKey, baseId, queueName }),
    RETRY_BASE_DELAY_MS: '20',
    LOG_LEVEL: 'silent',
    ...env,
  });
  const worker = await startWorker(config, ...(logger ? [logger] : []));
  const queue = new Queue(queueName, { connection: { url: inject('redisUrl') } });
  return {
    worker,
    queue,
    queueName,
    async stop() {
      await worker.stop();
      await queue.obliterate({ force: true });
      await queue.close();
    },
  };
}
