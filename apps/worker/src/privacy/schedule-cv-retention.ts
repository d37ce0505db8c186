import type { ObjectStorage } from '@forms/object-storage';
import type { Queue } from 'bullmq';
import type { Logger } from 'pino';
import type { WorkerConfig } from '../config.ts';
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
 * worker process upserts the same one, and BullMQ makes one job per period for all of them) on the worker's
 * maintenance queue (`runMaintenance`), so it never shows among submissions, in `ops failed` or in a replay,
 * and a paused submissions queue does not pause it.
 */
export async function scheduleCvRetention(maintenance: Queue): Promise<void> {
  await maintenance.upsertJobScheduler(
    CV_RETENTION_SCHEDULER,
    { every: CV_RETENTION_EVERY_MS },
    { name: CV_RETENTION_SCHEDULER, opts: { removeOnComplete: 20, removeOnFail: 20 } },
  );
}

/** One sweep: the CVs past CV_RETENTION_DAYS deleted, their CRM links cleared. */
export async function sweepCvs({
  config,
  crm,
  storage,
  logger,
}: {
  config: WorkerConfig;
  crm: Crm;
  storage: ObjectStorage;
  logger: Logger;
}): Promise<{ deleted: number; linksCleared: number }> {
  const result = await expireCvs({ storage, crm, retentionDays: config.cvRetentionDays, now: Date.now() });
  logger.info({ deleted: result.deleted.length, linksCleared: result.linksCleared }, 'cv retention swept');
  return { deleted: result.deleted.length, linksCleared: result.linksCleared };
}
