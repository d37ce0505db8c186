import { randomUUID } from 'node:crypto';
import type { Queue } from 'bullmq';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { type FakeAirtable, startFakeAirtable } from '../support/airtable-server.ts';
import { airtableWorkerEnv } from '../support/airtable-worker.ts';
import { AIRTABLE_RECORDS_PER_SECOND, airtableSeen, untilCompleted } from '../support/drain-pace.ts';
import { acknowledgedIds, sendCreatorsUnderLoad } from '../support/load.ts';
import { spawnWorker, type WorkerProcess } from '../support/spawn-app.ts';
import { startTestGateway, type TestGateway } from '../support/test-gateway.ts';
import { eventually, scaled } from '../support/wait.ts';

// 600 records take 15 s at the 4 requests a second (10 records each) the tests send; TEST_TIME_SCALE takes fewer.
const TOTAL = scaled(600, 400);
// A short lock, so the jobs a killed worker held come back within seconds: one lock, then one stalled
// check (its interval is the lock's), before the next worker takes them back.
const LOCK_MS = 2_000;
const BASE = `appKill${Date.now().toString(36)}`;
const KEY = 'patKillTwice';
// All load comes from 127.0.0.1, one client: the per-client limit is for the open internet, not this test.
const ONE_CLIENT = { RATE_LIMIT_REQUESTS: '0' };
let server: FakeAirtable;
let gateway: TestGateway;
let queue: Queue;
const workers: WorkerProcess[] = [];

beforeAll(async () => {
  server = await startFakeAirtable({ apiKey: KEY, rateLimit: { requests: 5, windowMs: 1_000, lockoutMs: 30_000 } });
  gateway = await startTestGateway(inject('redisUrl'), {
    ...ONE_CLIENT,
  });
  queue = gateway.queue;
});
afterAll(async () => {
  for (const w of workers) if (w.child.exitCode === null) w.child.kill('SIGKILL');
  await gateway?.stop();
  await server?.close();
});

describe('worker SIGKILLed twice during a busy drain into Airtable', () => {
  it('delivers every acknowledged submission exactly once, within the rate limit', async () => {
    const sent = await sendCreatorsUnderLoad(() => gateway.url, {
      lanes: 20,
      max: TOTAL,
      until: () => false,
      tag: `kill-${randomUUID()}`,
    });
    const acknowledged = acknowledgedIds(sent);
    expect(acknowledged.size).toBe(TOTAL);

    const env = {
      ...airtableWorkerEnv(server, { apiKey: KEY, baseId: BASE, queueName: gateway.queueName }),
      WORKER_LOCK_DURATION_MS: String(LOCK_MS),
    };
    // Each wait is the records it waits for at the CRM's pace, plus the killed worker's lock and stalled
    // check before its jobs come back; a timeout prints the queue, the CRM's counters and the workers' logs.
    const explain = () => airtableSeen(server, workers);
    const pace = { perSecond: AIRTABLE_RECORDS_PER_SECOND, plusMs: 2 * LOCK_MS, explain };
    for (const killAt of [100, 300]) {
      const worker = await spawnWorker(env);
      workers.push(worker);
      await untilCompleted(queue, killAt, pace);
      // Killed mid-drain by construction, at a moment it holds jobs (before, the test asserted that the
      // moment it happened to pick had some).
      await eventually(async () => (await queue.getActiveCount()) > 0, { timeoutMs: 10_000, everyMs: 10, explain });
      worker.child.kill('SIGKILL');
      await worker.exited;
    }
    const last = await spawnWorker(env);
    workers.push(last);
    await untilCompleted(queue, TOTAL, pace);
    expect(await queue.getCompletedCount()).toBe(TOTAL);
    expect(await queue.getFailedCount()).toBe(0);
    last.child.kill('SIGTERM');
    expect(await last.exited).toBe(0);

    const ids = server.records(BASE, 'Creators').map((r) => String(r.fields['Submission ID']));
    expect(ids.length).toBe(TOTAL); // no duplicates: one record per submission
    expect(new Set(ids)).toEqual(acknowledged);
    expect(server.stats.rateLimited).toBe(0);
  }, 150_000);
});
