import type { Worker } from 'bullmq';
import type { Logger } from 'pino';

/**
 * `worker.close()`, bounded by `withinMs`: it lets active jobs finish, but the submissions worker gives them one
 * lock period (a job still running after that has lost its lock, and the stalled check runs it again
 * elsewhere: the CRM write is an idempotent upsert), and the maintenance worker less (a sweep or a mark
 * runs again whole). Past it the worker's connections are ended (`worker.disconnect()`), and the close gets
 * as long again before the stop goes on without it: to close the CRM (an embedded PGlite is flushed then),
 * rather than the process's SHUTDOWN_TIMEOUT_MS exiting with it open.
 *
 * Why a bound: BullMQ 6.7's watchdog resets an idle worker's blocking connection when its BZPOPMIN outlives
 * its timeout (as after a cluster failover), and a close that meets that reset waited forever for an `end`
 * the reconnected client never emits (taskforcesh/bullmq#4722 names the race; unfixed in 6.7.6). Seen in
 * test/cluster/master-killed-*.test.ts: the worker's maintenance queue, idle through the failover, never
 * closed, and the test hung past its 180 s.
 */
export async function closeWorker(worker: Worker, { withinMs, logger }: { withinMs: number; logger: Logger }) {
  const closed = worker.close().then(() => true);
  if (await within(closed, withinMs)) return;
  logger.warn(
    { queue: worker.name, waitedMs: withinMs },
    'worker close outlasted its bound: its connections are ended (a job still running is run again by the stalled check)',
  );
  await worker.disconnect().catch(() => {});
  if (!(await within(closed, withinMs)))
    logger.error({ queue: worker.name }, 'worker close did not end after its connections were: stopping without it');
}

async function within(done: Promise<boolean>, ms: number): Promise<boolean> {
  let timer: NodeJS.Timeout | undefined;
  const late = new Promise<false>((resolve) => {
    timer = setTimeout(() => resolve(false), ms);
  });
  try {
    return await Promise.race([done, late]);
  } finally {
    clearTimeout(timer);
  }
}
