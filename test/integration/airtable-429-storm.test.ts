import { type AirtableCrm, loadAirtableMapping, loadConfig, type RunningWorker, startWorker } from '@forms/worker';
import { Queue, QueueEvents } from 'bullmq';
import { afterEach, expect, inject, it } from 'vitest';
import { type FakeAirtable, startFakeAirtable } from '../support/airtable-server.ts';
import { checkDelivery, enqueueSubmissions, mixedSubmissions, waitForDrain } from '../support/airtable-submissions.ts';

// A 429 locks the base out: the driver must stop sending to it for the lock-out, spend no job's attempts,
// count the 429, and carry on afterwards. Lock-outs are short here (Airtable's is 30 s).
const KEY = 'pat429Test';
const LOCKOUT_MS = 1_200;
const cleanup: (() => Promise<unknown>)[] = [];
afterEach(async () => {
  for (const close of cleanup.splice(0).reverse()) await close();
});

async function setUp(
  baseId: string,
  { sendRetryAfter, driverLockoutMs }: { sendRetryAfter: boolean; driverLockoutMs: number },
) {
  const server = await startFakeAirtable({
    apiKey: KEY,
    rateLimit: { requests: 20, windowMs: 1_000, lockoutMs: LOCKOUT_MS, sendRetryAfter },
  });
  cleanup.push(() => server.close());
  const queueName = `airtable-429-${baseId}`;
  const config = loadConfig({
    REDIS_URL: inject('redisUrl'),
    QUEUE_NAME: queueName,
    AIRTABLE_API_KEY: KEY,
    AIRTABLE_BASE_ID: baseId,
    AIRTABLE_ENDPOINT_URL: server.url,
    AIRTABLE_RATE_LIMIT: '20',
    AIRTABLE_RATE_MARGIN: '0.15', // room for CI's jitter: only the injected storms should 429
    AIRTABLE_LOCKOUT_MS: String(driverLockoutMs),
    RETRY_BASE_DELAY_MS: '20',
    LOG_LEVEL: 'silent',
  });
  const queue = new Queue(queueName, { connection: { url: inject('redisUrl') } });
  const events = new QueueEvents(queueName, { connection: { url: inject('redisUrl') } });
  cleanup.push(async () => {
    await events.close();
    await queue.obliterate({ force: true });
    await queue.close();
  });
  let failedAttempts = 0;
  events.on('failed', () => failedAttempts++);
  events.on('retries-exhausted', () => failedAttempts++);
  await events.waitUntilReady();
  const worker: RunningWorker = await startWorker(config);
  cleanup.push(() => worker.stop());
  return { server, queue, worker, failedAttempts: () => failedAttempts };
}

/** Requests that reached the server inside a lock-out, after the 429 that started it. */
function sentDuringLockOut(server: FakeAirtable): number {
  const log = server.stats.log;
  const first = log.findIndex((l) => l.status === 429);
  // Requests already on the wire when the 429 came back may still arrive; allow a 50 ms grace.
  return log.filter((l) => l.at > log[first]!.at + 50 && l.at < log[first]!.at + LOCKOUT_MS - 50).length;
}

it('a 429 storm pauses the whole base for the lock-out, spends no attempts, and recovers', async () => {
  const baseId = `appStorm${Date.now().toString(36)}`;
  const { server, queue, worker, failedAttempts } = await setUp(baseId, {
    sendRetryAfter: false,
    driverLockoutMs: LOCKOUT_MS,
  });
  const submissions = mixedSubmissions(300);
  server.lockOut(baseId, LOCKOUT_MS); // the base is locked when the first batch arrives
  const started = Date.now();
  await enqueueSubmissions(queue, submissions);
  // And a second storm half-way.
  setTimeout(() => server.lockOut(baseId, LOCKOUT_MS), LOCKOUT_MS + 600).unref();

  expect(await waitForDrain(queue, submissions.length, 30_000)).toEqual({ completed: 300, failed: 0 });
  expect(Date.now() - started).toBeGreaterThanOrEqual(2 * LOCKOUT_MS);
  const check = checkDelivery(server, baseId, submissions, loadAirtableMapping());
  expect([check.lost, check.duplicated]).toEqual([[], []]);

  expect(failedAttempts()).toBe(0);
  const jobs = await queue.getJobs(['completed'], 0, 299);
  expect(Math.max(...jobs.map((j) => j.attemptsMade))).toBeLessThanOrEqual(1);
  const stats = (worker.crm as AirtableCrm).stats();
  expect(stats.rateLimited).toBe(server.stats.rateLimited);
  expect(stats.rateLimited).toBeGreaterThanOrEqual(2);
  expect(stats.rateLimited).toBeLessThanOrEqual(6); // one per storm, plus any request already under way
  expect(sentDuringLockOut(server)).toBe(0);
});

it('honours Retry-After over its own lock-out default', async () => {
  const baseId = `appRetryAfter${Date.now().toString(36)}`;
  // The driver's default would wait a minute; the server says 2 s (its 1.2 s lock-out, rounded up).
  const { server, queue } = await setUp(baseId, { sendRetryAfter: true, driverLockoutMs: 60_000 });
  server.lockOut(baseId, LOCKOUT_MS);
  const submissions = mixedSubmissions(50);
  const started = Date.now();
  await enqueueSubmissions(queue, submissions);
  expect(await waitForDrain(queue, submissions.length, 15_000)).toEqual({ completed: 50, failed: 0 });
  expect(Date.now() - started).toBeLessThan(10_000);
  expect(server.stats.rateLimited).toBeGreaterThanOrEqual(1);
});
