import { loadAirtableMapping } from '@forms/worker';
import { Queue } from 'bullmq';
import { afterAll, beforeAll, expect, inject, it } from 'vitest';
import { type FakeAirtable, startFakeAirtable } from '../support/airtable-server.ts';
import { checkDelivery, enqueueSubmissions, mixedSubmissions, waitForDrain } from '../support/airtable-submissions.ts';
import { airtableWorkerEnv } from '../support/airtable-worker.ts';
import { spawnWorker, type WorkerProcess } from '../support/spawn-app.ts';

// Two worker processes, one base: the rate limit is the base's, not each process's. The fake enforces it
// strictly (any second holding more than the limit is a 429 and a lock-out longer than this test).
const BASE = `appTwo${Date.now().toString(36)}`;
const KEY = 'patTwoWorkers';
const LIMIT = 10;
let server: FakeAirtable;
let queue: Queue;
const workers: WorkerProcess[] = [];

beforeAll(async () => {
  server = await startFakeAirtable({ apiKey: KEY, rateLimit: { requests: LIMIT, windowMs: 1_000, lockoutMs: 60_000 } });
  const queueName = `airtable-two-${Date.now()}`;
  queue = new Queue(queueName, { connection: { url: inject('redisUrl') } });
  const env = {
    ...airtableWorkerEnv(server, { apiKey: KEY, baseId: BASE, queueName }),
    // airtableWorkerEnv's margin leaves room for CI's jitter, so it cannot pass for a shared-limit bug.
    // Unshared, the two processes would send 1.6 times the limit.
    AIRTABLE_RATE_LIMIT: String(LIMIT),
  };
  workers.push(...(await Promise.all([spawnWorker(env), spawnWorker(env)])));
});

afterAll(async () => {
  for (const w of workers) w.child.kill('SIGTERM');
  await Promise.all(workers.map((w) => w.exited));
  await queue?.obliterate({ force: true });
  await queue?.close();
  await server?.close();
});

it('holds the rate limit with two worker processes, and delivers everything once', async () => {
  const submissions = mixedSubmissions(600);
  await enqueueSubmissions(queue, submissions);
  expect(await waitForDrain(queue, submissions.length, 40_000)).toEqual({ completed: 600, failed: 0 });

  expect(server.stats.rateLimited).toBe(0);
  const times = server.stats.log.map((l) => l.at);
  for (let i = 0; i + LIMIT < times.length; i++) expect(times[i + LIMIT]! - times[i]!).toBeGreaterThanOrEqual(1_000);
  // Near the limit, not merely under it. Each process holds at most its 100 jobs at once, so both took
  // part; unshared, their two limits would have sent twice the base's rate and met a 429.
  const seconds = (times.at(-1)! - times[0]!) / 1000;
  expect(server.stats.requests / seconds).toBeGreaterThan(0.7 * LIMIT);
  const check = checkDelivery(server, BASE, submissions, loadAirtableMapping());
  expect([check.lost, check.duplicated]).toEqual([[], []]);
  for (const w of workers) expect(w.child.exitCode).toBeNull();
});
