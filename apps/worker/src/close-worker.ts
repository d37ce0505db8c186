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
 * Why a bound: in test/cluster/master-killed-*.test.ts beside the fault tier, a third of the runs hung past
 * their 180 s in the close of the worker's maintenance queue, idle through the failover. At that moment its
 * blocking client was `ready` again (not closing) and BullMQ's main loop still ran. BullMQ 6.7 resets an
 * idle worker's blocking connection when a BZPOPMIN outlives its timeout (as after a failover), and a close
 * that meets that reconnect is the likeliest way (taskforcesh/bullmq#4722 names a race of this kind; 6.7.6
 * has the same code). Ending the connections did not always end the close: once the stop went on without it.
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
