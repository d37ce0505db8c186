import { randomUUID } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { loadConfig, type RunningGateway, startGateway } from '@forms/gateway';
import { type LocalRedis, startRedisServer } from '@forms/local-services';
import { Queue } from 'bullmq';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { openTestDatabase, type TestDatabase } from '../support/crm-database.ts';
import { acknowledgedIds, sendCreatorsUnderLoad } from '../support/load.ts';
import { spawnWorker, type WorkerProcess } from '../support/spawn-app.ts';
import { eventually, sleep } from '../support/wait.ts';

// Restarts its own redis-server (append-only file on), so it never touches the shared test Redis.
const queueName = `restart-${randomUUID()}`;
const dataDir = mkdtempSync(join(tmpdir(), 'forms-redis-aof-'));
// All load comes from 127.0.0.1, one client: the per-client limit is for the open internet, not this test.
const ONE_CLIENT = { RATE_LIMIT_REQUESTS: '0' };
let redis: LocalRedis;
let gateway: RunningGateway;
let store: TestDatabase;
let worker: WorkerProcess | undefined;

beforeAll(async () => {
  redis = await startRedisServer({ dir: dataDir });
  store = await openTestDatabase({ shareable: true });
  gateway = await startGateway(
    loadConfig({
      PORT: '0',
      HOST: '127.0.0.1',
      REDIS_URL: redis.url,
      QUEUE_NAME: queueName,
      LOG_LEVEL: 'silent',
      ...ONE_CLIENT,
    }),
  );
});
afterAll(async () => {
  if (worker?.child.exitCode === null) worker.child.kill('SIGKILL');
  await gateway?.stop();
  await redis?.stop();
  await store?.close();
  rmSync(dataDir, { recursive: true, force: true });
});

describe('Redis restarted (AOF on) under load', () => {
  it('answers 503 with Retry-After within a second while it is down, and delivers every acknowledged submission exactly once', async () => {
    // A short lock: jobs active when Redis went away are taken back within seconds, not the default 30 s.
    worker = await spawnWorker({
      ...store.workerEnv,
      REDIS_URL: redis.url,
      QUEUE_NAME: queueName,
      WORKER_LOCK_DURATION_MS: '2000',
    });
    const started = Date.now();
    const load = sendCreatorsUnderLoad(() => gateway.url, {
      lanes: 10,
      max: 30_000, // a bound; the 6 s end the load, well after Redis is back
      until: () => Date.now() - started > 6_000,
      tag: `restart-${randomUUID()}`,
    });
    await sleep(1_500);
    await redis.stop(); // SIGTERM: Redis writes its append-only file out and exits
    await sleep(2_000);
    redis = await startRedisServer({ port: redis.port, dir: dataDir });
    const restarted = performance.now();
    const sent = await load;

    const refused = sent.filter((s) => s.status !== 200);
    const acknowledged = acknowledgedIds(sent);
    expect(refused.length).toBeGreaterThan(0);
    expect(sent.filter((s) => s.error)).toEqual([]); // every request had an HTTP answer
    for (const s of refused)
      expect({ status: s.status, retryAfter: s.retryAfter }).toEqual({ status: 503, retryAfter: '5' });
    // ENQUEUE_TIMEOUT_MS is 1 s; a refused connection answers at once. The slack is for a loaded CI machine.
    expect(Math.max(...refused.map((s) => s.ms))).toBeLessThan(1_250);
    const afterRestart = sent.filter((s) => s.status === 200 && s.at > restarted).length;
    expect(afterRestart).toBeGreaterThan(0);

    const queue = new Queue(queueName, { connection: { url: redis.url } });
    try {
      await eventually(
        async () => {
          const c = await queue.getJobCounts('waiting', 'active', 'delayed', 'prioritized');
          return Object.values(c).every((n) => n === 0);
        },
        { timeoutMs: 60_000, everyMs: 250 },
      );
      expect(await queue.getFailedCount()).toBe(0);
    } finally {
      await queue.close();
    }
    worker.child.kill('SIGTERM');
    expect(await worker.exited, worker.output()).toBe(0);

    const db = await store.read();
    const { rows } = await db.query<{ id: string; email: string }>('SELECT id, email FROM submissions');
    const ids = new Set(rows.map((r) => r.id));
    expect(ids.size).toBe(rows.length);
    for (const id of acknowledged) expect(ids.has(id)).toBe(true);
    // Rows beyond the acknowledged ones can only be submissions answered 503 whose add Redis took just as
    // it went down (the client was told it may not have been recorded, and retries safely with its key).
    const refusedEmails = new Set(refused.map((s) => s.email));
    const extra = rows.filter((r) => !acknowledged.has(r.id));
    for (const r of extra) expect(refusedEmails.has(r.email)).toBe(true);
    console.log(
      `${sent.length} sent, ${acknowledged.size} acknowledged (${afterRestart} after the restart), ${refused.length} answered 503 (slowest ${Math.max(...refused.map((s) => s.ms)).toFixed(0)} ms), ${extra.length} of those stored anyway`,
    );
  }, 120_000);
});
