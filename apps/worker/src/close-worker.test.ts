import { randomUUID } from 'node:crypto';
import { Worker } from 'bullmq';
import { Redis } from 'ioredis';
import { pino } from 'pino';
import { expect, inject, it } from 'vitest';
import { closeWorker } from './close-worker.ts';

/**
 * An idle worker whose close meets the race of closeWorker's note: BullMQ's close disconnects the blocking
 * client and waits for its `end`, which the watchdog's reconnect took away. Here the first disconnect the
 * blocking client is asked for is lost (as that race loses it), on a real Redis.
 */
async function workerWhoseCloseHangs() {
  const worker = new Worker(`close-${randomUUID()}`, async () => {}, {
    connection: new Redis(inject('redisUrl'), { maxRetriesPerRequest: null }),
    drainDelay: 1,
  });
  worker.on('error', () => {});
  await worker.waitUntilReady();
  const internals = worker as unknown as { backend: { blockingConnection: { client: Promise<Redis> } } };
  const blocking = await internals.backend.blockingConnection.client;
  const disconnect = blocking.disconnect.bind(blocking);
  let lost = false;
  blocking.disconnect = (reconnect?: boolean) => {
    if (lost) return disconnect(reconnect);
    lost = true;
  };
  return worker;
}

const settlesWithin = (work: Promise<unknown>, ms: number) =>
  Promise.race([work.then(() => true), new Promise((resolve) => setTimeout(() => resolve(false), ms))]);

it('worker-close-bounded-when-bullmq-close-hangs: ends within its bound, where close() alone waits on', async () => {
  const control = await workerWhoseCloseHangs();
  expect(await settlesWithin(control.close(), 3_000)).toBe(false);
  await control.disconnect();

  const worker = await workerWhoseCloseHangs();
  const started = performance.now();
  expect(await settlesWithin(closeWorker(worker, { withinMs: 500, logger: pino({ level: 'silent' }) }), 3_000)).toBe(
    true,
  );
  expect(performance.now() - started).toBeLessThan(1_500);
}, 20_000);
