import { Worker } from 'bullmq';
import { Redis } from 'ioredis';
import type { Logger } from 'pino';
import { retryDelay } from '@forms/schemas';
import type { WorkerConfig } from './config.ts';
import type { ObjectStorage } from '@forms/object-storage';
import type { Crm } from './crm/crm.ts';
import { deliverSubmission } from './handlers/deliver-submission.ts';

/**
 * The BullMQ consumer. Its connection retries forever (`maxRetriesPerRequest: null`) so a Redis restart
 * pauses work instead of failing it. A job whose worker died is found by the stalled check after one lock
 * period and runs again; `maxStalledCount` is generous because a crash is not the job's fault, and the
 * CRM write is an idempotent upsert.
 */
export function createWorker({ config, crm, storage, logger }: { config: WorkerConfig; crm: Crm; storage?: ObjectStorage | undefined; logger: Logger }): Worker {
  const connection = new Redis(config.redisUrl, { maxRetriesPerRequest: null });
  const worker = new Worker(config.queueName, (job) => deliverSubmission(job, crm, { storage, urlTtlSeconds: config.cvUrlTtlSeconds, logger }), {
    connection,
    concurrency: config.concurrency,
    lockDuration: config.lockDurationMs,
    stalledInterval: config.lockDurationMs,
    maxStalledCount: 5,
    settings: {
      backoffStrategy: (attemptsMade: number) =>
        retryDelay(attemptsMade, { baseDelayMs: config.retryBaseDelayMs, maxDelayMs: config.retryMaxDelayMs }),
    },
  });
  worker.on('failed', (job, err) =>
    logger.warn({ jobId: job?.id, name: job?.name, attemptsMade: job?.attemptsMade, err: err.message }, 'delivery failed'),
  );
  worker.on('error', (err) => logger.error({ err }, 'worker error'));
  worker.on('closed', () => connection.disconnect());
  return worker;
}
