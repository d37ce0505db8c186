import type { Queue } from 'bullmq';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { openTestDatabase, type TestDatabase } from '../support/crm-database.ts';
import { spawnWorker } from '../support/spawn-app.ts';
import { startTestGateway, type TestGateway } from '../support/test-gateway.ts';
import { eventually } from '../support/wait.ts';

const TOTAL = 1_500;
let store: TestDatabase;
let gateway: TestGateway;
let queue: Queue;

beforeAll(async () => {
  store = await openTestDatabase({ shareable: true });
  gateway = await startTestGateway(inject('redisUrl'), {
    RATE_LIMIT_REQUESTS: '0', // 1,500 submissions from one address: the per-client limit is not under test
  });
  queue = gateway.queue;
});
afterAll(async () => {
  await gateway?.stop();
  await store?.close();
});

describe('worker killed with SIGKILL mid-job', () => {
  it('delivers every acknowledged submission exactly once after a restart', async () => {
    const acknowledged = new Set<string>();
    for (let batch = 0; batch < TOTAL / 50; batch++) {
      const answers = await Promise.all(
        Array.from({ length: 50 }, (_, i) =>
          fetch(`${gateway.url}/api/creator-signup`, {
            method: 'POST',
            headers: { 'content-type': 'application/json' },
            body: JSON.stringify({ email: `c${batch}-${i}@acme.io`, name: 'Creator' }),
          }).then((r) => r.json()),
        ),
      );
      for (const a of answers) acknowledged.add(a.recordId);
    }
    expect(acknowledged.size).toBe(TOTAL);

    // Low concurrency and a short lock so the kill lands mid-backlog and the restart finds stalled jobs fast.
    const env = {
      ...store.workerEnv,
      REDIS_URL: inject('redisUrl'),
      QUEUE_NAME: gateway.queueName,
      WORKER_CONCURRENCY: '4',
      WORKER_LOCK_DURATION_MS: '2000',
    };
    const first = await spawnWorker(env);
    // Killed mid-job by construction: at a moment it holds jobs (before, the test asserted that the moment it
    // happened to pick had some active, a landing rather than a promise).
    await eventually(async () => (await queue.getCompletedCount()) >= 50 && (await queue.getActiveCount()) > 0, {
      timeoutMs: 30_000,
      everyMs: 20,
    });
    first.child.kill('SIGKILL');
    await first.exited;
    expect(await queue.getCompletedCount()).toBeLessThan(TOTAL);

    const second = await spawnWorker(env);
    await eventually(async () => (await queue.getCompletedCount()) === TOTAL, { timeoutMs: 60_000, everyMs: 200 });
    expect(await queue.getFailedCount()).toBe(0);
    second.child.kill('SIGTERM');
    expect(await second.exited).toBe(0);

    const db = await store.read();
    const { rows } = await db.query<{ id: string }>('SELECT id FROM submissions');
    expect(rows.length).toBe(TOTAL);
    expect(new Set(rows.map((r) => r.id))).toEqual(acknowledged);
  }, 120_000);
});
