import type { ObjectStorage } from '@forms/object-storage';
import { parseJobPayload, submissionEmail } from '@forms/schemas';
import { Queue, Worker } from 'bullmq';
import type { Logger } from 'pino';
import { closeWorker } from './close-worker.ts';
import type { WorkerConfig } from './config.ts';
import { createWorkerRedis } from './create-worker-redis.ts';
import type { Crm, SpamMarkTarget } from './crm/crm.ts';
import { maintenanceQueueName, scheduleCvRetention, sweepCvs } from './privacy/schedule-cv-retention.ts';

/**
 * The job `ops spam mark` adds to the maintenance queue for delivered submissions: `{ submissionIds }` (ids
 * only, never an address: the maintenance queue is not one erase searches). A worker marks their CRM
 * records (`Crm.markSpam`) and returns `{ marked, noRecord }`, ids again, each list in the order asked.
 */
export const SPAM_MARK_JOB = 'spam-mark';
export type SpamMarkResult = { marked: string[]; noRecord: string[] };

/** How long a stop waits for a maintenance job: a sweep or a mark cut short runs again whole. */
const MAINTENANCE_CLOSE_MS = 2_000;

/**
 * The worker's own jobs, on a queue beside the submissions queue (same prefix, same slot), one at a time
 * per process: the CV retention sweep (scheduled when there is a bucket) and the spam marks ops ask for.
 * They run here, in the process that holds the CRM, so they work on every CRM, an embedded PGlite that a
 * running `pnpm start` holds included.
 */
export async function runMaintenance({
  config,
  crm,
  storage,
  logger,
}: {
  config: WorkerConfig;
  crm: Crm;
  storage: ObjectStorage | undefined;
  logger: Logger;
}): Promise<{ close: () => Promise<void> }> {
  const connection = createWorkerRedis(config.redis);
  const options = { connection, prefix: config.redis.prefix };
  const queue = new Queue(maintenanceQueueName(config.queueName), options);
  // No bucket, no CVs to expire.
  if (storage) await scheduleCvRetention(queue);
  const submissions = new Queue(config.queueName, options);
  const worker = new Worker(
    queue.name,
    async (job) => {
      if (job.name === SPAM_MARK_JOB) return markSpamOf(crm, submissions, job.data.submissionIds);
      // A sweep scheduled by a process that had a bucket, taken by one without: nothing here to expire.
      if (!storage) return { deleted: 0, linksCleared: 0 };
      return sweepCvs({ config, crm, storage, logger });
    },
    { ...options, concurrency: 1 },
  );
  worker.on('error', (err) => logger.error({ err }, 'maintenance worker error'));
  return {
    async close() {
      await closeWorker(worker, { withinMs: MAINTENANCE_CLOSE_MS, logger });
      await submissions.close();
      await queue.close();
      connection.disconnect();
    },
  };
}

/**
 * Marks the CRM records of these submissions: each one's kind and address read from its job (completed jobs
 * are kept a day; ops only asks for delivered ones it found there). An id without a job has no record marked.
 */
async function markSpamOf(crm: Crm, submissions: Queue, ids: unknown): Promise<SpamMarkResult> {
  const wanted = Array.isArray(ids) ? ids.filter((id): id is string => typeof id === 'string') : [];
  const targets: SpamMarkTarget[] = [];
  for (const id of wanted) {
    const job = await submissions.getJob(id);
    const read = job ? parseJobPayload(JSON.stringify(job.data)) : undefined;
    if (read && 'payload' in read)
      targets.push({ submissionId: id, kind: read.payload.kind, email: submissionEmail(read.payload) });
  }
  // In the order asked, whatever order the CRM found its records in.
  const found = new Set(await crm.markSpam(targets));
  return { marked: wanted.filter((id) => found.has(id)), noRecord: wanted.filter((id) => !found.has(id)) };
}
