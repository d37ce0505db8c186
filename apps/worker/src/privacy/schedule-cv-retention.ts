import type { ObjectStorage } from '@forms/object-storage';
import { Queue, Worker } from 'bullmq';
import type { Logger } from 'pino';
import type { WorkerConfig } from '../config.ts';
import { createWorkerRedis } from '../create-worker-redis.ts';
import type { Crm } from '../crm/crm.ts';
import { expireCvs } from './expire-cvs.ts';

/** The retention sweep runs this often; a CV outlives CV_RETENTION_DAYS by at most this much. */
export const CV_RETENTION_EVERY_MS = 6 * 3600_000;
export const CV_RETENTION_SCHEDULER = 'cv-retention';

/** The queue of the worker's own scheduled jobs, beside the submissions queue (same prefix, same slot). */
export function maintenanceQueueName(queueName: string): string {
  return `${queueName}-maintenance`;
}

/**
 * Schedules the CV retention sweep with BullMQ's job scheduler (`upsertJobScheduler`, idempotent: every
 * worker process upserts the same one, and BullMQ makes one job per period for all of them) on a queue of
 * its own, so it never shows among submissions, in `ops failed` or in a replay, and a paused submissions
 * queue does not pause it. One job at a time per process.
 */
export async function scheduleCvRetention({
  config,
  crm,
  storage,
  logger,
}: {
  config: WorkerConfig;
  crm: Crm;
  storage: ObjectStorage;
  logger: Logger;
}): Promise<{ close: () => Promise<void> }> {
  const connection = createWorkerRedis(config.redis);
  const name = maintenanceQueueName(config.queueName);
  const queue = new Queue(name, { connection, prefix: config.redis.prefix });
  await queue.upsertJobScheduler(
    CV_RETENTION_SCHEDULER,
    { every: CV_RETENTION_EVERY_MS },
    { name: CV_RETENTION_SCHEDULER, opts: { removeOnComplete: 20, removeOnFail: 20 } },
  );
  const worker = new Worker(
    name,
    async () => {
      const result = await expireCvs({ storage, crm, retentionDays: config.cvRetentionDays, now: Date.now() });
      logger.info({ deleted: result.deleted.length, linksCleared: result.linksCleared }, 'cv retention swept');
      return { deleted: result.deleted.length, linksCleared: result.linksCleared };
    },
    { connection, prefix: config.redis.prefix, concurrency: 1 },
  );
  worker.on('error', (err) => logger.error({ err }, 'maintenance worker error'));
  return {
    async close() {
      await worker.close();
      await queue.close();
      connection.disconnect();
    },
  };
}
