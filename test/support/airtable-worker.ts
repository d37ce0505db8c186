import { randomUUID } from 'node:crypto';
import { loadConfig, type RunningWorker, startWorker } from '@forms/worker';
import { Queue } from 'bullmq';
import type { Logger } from 'pino';
import { inject } from 'vitest';
import type { FakeAirtable } from './airtable-server.ts';

/**
 * What a worker needs to reach the local Airtable server `server` and the test Redis's queue `queueName`.
 *
 * The requests leave at 4/s (a margin of 0.2, not the default 0.1): the local server stamps arrivals on its
 * own event loop, in the test's process, which on a 2-core CI machine running two tiers at once stalls for
 * up to 180 ms (measured) and bunches the requests it reads late; at 4.5/s five gaps hold only 115 ms of
 * slack and one bunch earned a 429 and 30 s of lock-out (airtable-requests-stall-after-unanswered-writes).
 * At 4/s they hold 250 ms. A test may set its own.
 */
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
    AIRTABLE_RATE_MARGIN: '0.2',
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
