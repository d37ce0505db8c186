import { maintenanceQueueName, SPAM_MARK_JOB, type SpamMarkResult } from '@forms/worker';
import { Queue } from 'bullmq';
import type { CliContext } from './cli-context.ts';
import type { OpenQueue } from './open-queue.ts';

/**
 * What `ops spam mark` did to the CRM: the records marked and those it holds none of; or, when no worker
 * finished the job in time, its id, its state (waiting: no worker runs; delayed: retrying; failed: given up)
 * and the last failure's reason.
 */
export type CrmSpamMarks = SpamMarkResult | { pending: string; state: string; failedReason?: string };

/** How long `ops spam mark` waits for a worker to mark the CRM records before saying they are queued. */
const MARK_WAIT_MS = 30_000;
const POLL_MS = 100;

/**
 * Marks the CRM records of delivered submissions as spam (a field; nothing deleted): a job on the workers'
 * maintenance queue (`SPAM_MARK_JOB`, the ids only), which the worker holding the CRM runs with its drivers'
 * `markSpam`, so it works on every CRM, an embedded PGlite that `pnpm start` holds included. Waits for its
 * answer; a job no worker took within MARK_WAIT_MS stays queued (it is marked when one does), and says so.
 */
export async function markCrmSpam(
  ctx: CliContext,
  { redis }: OpenQueue,
  submissionIds: readonly string[],
): Promise<CrmSpamMarks> {
  if (submissionIds.length === 0) return { marked: [], noRecord: [] };
  const { queueName, redis: settings } = ctx.config();
  const queue = new Queue(maintenanceQueueName(queueName), { connection: redis, prefix: settings.prefix });
  try {
    const job = await queue.add(
      SPAM_MARK_JOB,
      { submissionIds },
      {
        attempts: 5,
        backoff: { type: 'exponential', delay: 1_000 },
        removeOnComplete: { age: 3600 },
        removeOnFail: { age: 7 * 24 * 3600 },
      },
    );
    const deadline = Date.now() + MARK_WAIT_MS;
    for (let state = await job.getState(); ; state = await job.getState()) {
      if (state === 'completed') return (await queue.getJob(job.id!))!.returnvalue as SpamMarkResult;
      if (state === 'failed' || Date.now() > deadline) {
        const { failedReason } = (await queue.getJob(job.id!)) ?? {};
        return { pending: job.id!, state, ...(failedReason ? { failedReason } : {}) };
      }
      await new Promise((resolve) => setTimeout(resolve, POLL_MS));
    }
  } finally {
    await queue.close();
  }
}
