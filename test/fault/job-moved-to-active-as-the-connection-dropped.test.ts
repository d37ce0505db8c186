import type { Queue } from 'bullmq';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { openTestDatabase, type TestDatabase } from '../support/crm-database.ts';
import { spawnWorker } from '../support/spawn-app.ts';
import { startTcpProxy, type TcpProxy } from '../support/tcp-proxy.ts';
import { startTestGateway, type TestGateway } from '../support/test-gateway.ts';
import { eventually } from '../support/wait.ts';

// The worker's connection drops after Redis ran its "move the next job to active" and before the answer
// came back: Redis has the job active under the worker's lock token, the worker never heard of it. ioredis
// sends the command again on the new connection, which takes the job after it; the first waits under a lock
// nobody renews until the lock runs out and BullMQ's stalled check puts it back (up to two lock periods).
const TOTAL = 40;
const LOCK_MS = 2_000;
let store: TestDatabase;
let gateway: TestGateway;
let queue: Queue;
let proxy: TcpProxy;

beforeAll(async () => {
  store = await openTestDatabase({ shareable: true });
  gateway = await startTestGateway(inject('redisUrl'), { RATE_LIMIT_REQUESTS: '0' });
  queue = gateway.queue;
  proxy = await startTcpProxy(Number(new URL(inject('redisUrl')).port));
});
afterAll(async () => {
  await proxy?.close();
  await gateway?.stop();
  await store?.close();
});

describe('a job moved to active as the connection dropped', () => {
  it('is delivered once, after its lock runs out', async () => {
    const acknowledged = new Set<string>();
    const answers = await Promise.all(
      Array.from({ length: TOTAL }, (_, i) =>
        fetch(`${gateway.url}/api/creator-signup`, {
          method: 'POST',
          headers: { 'content-type': 'application/json' },
          body: JSON.stringify({ email: `moved${i}@acme.io`, name: 'Creator' }),
        }).then((r) => r.json() as Promise<{ recordId: string }>),
      ),
    );
    for (const a of answers) acknowledged.add(a.recordId);
    expect(acknowledged.size).toBe(TOTAL);

    // The worker's first fetch of a job (moveToActive, whose options name the lock's duration) runs in Redis;
    // its answer never reaches the worker.
    proxy.dropAnswerTo((sent) => sent.includes('lockDuration'));
    const worker = await spawnWorker({
      ...store.workerEnv,
      REDIS_URL: `redis://127.0.0.1:${proxy.port}`,
      QUEUE_NAME: gateway.queueName,
      WORKER_CONCURRENCY: '4',
      WORKER_LOCK_DURATION_MS: String(LOCK_MS),
    });
    const started = Date.now();
    await eventually(async () => (await queue.getCompletedCount()) === TOTAL, { timeoutMs: 30_000, everyMs: 100 });
    expect(await queue.getFailedCount()).toBe(0);
    const retaken = (await queue.getJobs(['completed'])).filter((job) => job.stalledCounter > 0);
    expect(retaken.length).toBeGreaterThanOrEqual(1);
    console.log(
      `moved as the connection dropped: ${retaken.length} job(s) taken back by the stalled check, all ${TOTAL} done in ${Date.now() - started} ms`,
    );
    worker.child.kill('SIGTERM');
    expect(await worker.exited).toBe(0);

    const db = await store.read();
    const { rows } = await db.query<{ id: string }>('SELECT id FROM submissions');
    expect(rows.length).toBe(TOTAL);
    expect(new Set(rows.map((r) => r.id))).toEqual(acknowledged);
  }, 60_000);
});
