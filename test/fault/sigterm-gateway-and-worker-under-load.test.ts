import { randomUUID } from 'node:crypto';
import { Queue } from 'bullmq';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { openTestDatabase, type TestDatabase } from '../support/crm-database.ts';
import { acknowledgedIds, sendCreatorsUnderLoad } from '../support/load.ts';
import { type GatewayProcess, spawnGateway, spawnWorker, type WorkerProcess } from '../support/spawn-app.ts';
import { eventually, sleep } from '../support/wait.ts';

const queueName = `sigterm-${randomUUID()}`;
let store: TestDatabase;
let queue: Queue;
let gateway: GatewayProcess | undefined;
const workers: WorkerProcess[] = [];
/** How long the load runs before the SIGTERM. */
const LOAD_BEFORE_SIGTERM_MS = 2_000;

beforeAll(async () => {
  store = await openTestDatabase({ shareable: true });
  queue = new Queue(queueName, { connection: { url: inject('redisUrl') } });
});
afterAll(async () => {
  if (gateway?.child.exitCode === null) gateway.child.kill('SIGKILL');
  for (const w of workers) if (w.child.exitCode === null) w.child.kill('SIGKILL');
  await queue?.obliterate({ force: true });
  await queue?.close();
  await store?.close();
});

describe('SIGTERM to gateway and worker under load', () => {
  it('answers in-flight requests, finishes or returns active jobs, and loses nothing', async () => {
    const env = { REDIS_URL: inject('redisUrl'), QUEUE_NAME: queueName, RATE_LIMIT_REQUESTS: '0' };
    const workerEnv = { ...store.workerEnv, ...env, WORKER_LOCK_DURATION_MS: '2000' };
    const running = await spawnGateway(env);
    gateway = running;

    const load = sendCreatorsUnderLoad(() => running.url, {
      lanes: 20,
      max: 20_000,
      until: () => running.child.exitCode !== null,
      tag: `term-${randomUUID()}`,
    });
    await sleep(LOAD_BEFORE_SIGTERM_MS);
    running.child.kill('SIGTERM');
    expect(await running.exited).toBe(0);
    const sent = await load;

    // A worker, busy with the backlog the load left, is stopped the same way while it holds jobs.
    workers.push(await spawnWorker(workerEnv));
    await eventually(async () => (await queue.getActiveCount()) > 0 && (await queue.getCompletedCount()) > 0, {
      timeoutMs: 20_000,
      everyMs: 10,
    });
    workers[0]!.child.kill('SIGTERM');
    expect(await workers[0]!.exited).toBe(0);
    const counts = await queue.getJobCounts('waiting', 'active', 'completed', 'failed', 'delayed');
    expect(counts.failed).toBe(0);
    // Active jobs were finished, or handed back (a stopped worker's unfinished jobs run again).
    const acknowledged = acknowledgedIds(sent);
    expect(counts.waiting! + counts.active! + counts.completed! + counts.delayed!).toBeGreaterThanOrEqual(
      acknowledged.size,
    );

    workers.push(await spawnWorker(workerEnv));
    await eventually(async () => (await queue.getCompletedCount()) >= acknowledged.size, {
      timeoutMs: 60_000,
      everyMs: 250,
    });
    workers[1]!.child.kill('SIGTERM');
    expect(await workers[1]!.exited).toBe(0);

    const unanswered = sent.filter((s) => s.status === undefined);
    expect(sent.filter((s) => s.status !== undefined && s.status !== 200)).toEqual([]);
    const db = await store.read();
    const { rows } = await db.query<{ id: string; email: string }>('SELECT id, email FROM submissions');
    // Every request the gateway took was answered 200 and stored once; the requests with no HTTP answer
    // are those that came after it stopped listening (never processed: no row).
    expect(new Set(rows.map((r) => r.id))).toEqual(acknowledged);
    const stored = new Set(rows.map((r) => r.email));
    for (const s of unanswered) expect(stored.has(s.email)).toBe(false);
    console.log(
      `${acknowledged.size} acknowledged before the gateway stopped; ${unanswered.length} later requests found no gateway (${[...new Set(unanswered.map((s) => s.error))].join(', ')})`,
    );
  }, 120_000);
});
