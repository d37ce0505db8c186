import { randomUUID } from 'node:crypto';
import { loadConfig as gatewayConfig, startGateway } from '@forms/gateway';
import { startRedisCluster } from '@forms/local-services';
import { createPostgresCrm, startWorker, loadConfig as workerConfig } from '@forms/worker';
import { Queue } from 'bullmq';
import { Command } from 'ioredis';
import { pino } from 'pino';
import { expect, it } from 'vitest';
import { createWorkerRedis } from '../../apps/worker/src/create-worker-redis.ts';
import { openTestDatabase } from '../support/crm-database.ts';
import { attemptsSpent } from '../support/failover-under-load.ts';
import { compareDelivery, countStatuses, submitMany } from '../support/submit-many.ts';
import { eventually } from '../support/wait.ts';

const HOLD_MS = 10_000;
/** The move's pace: a batch of keys every 200 ms, sized so the whole slot takes about this long. */
const MIGRATING_MS = 5_000;
const EVERY_MS = 200;
const ADMIN_TOKEN = 'slot-move-admin-token';

// Adding capacity to a Redis Cluster moves slots between masters while they serve
// (docs/operations.md#moving-the-queues-slot). Every key of the queue (jobs, lists, the contact index, idempotency records) shares one
// slot, so while it migrates BullMQ's scripts meet TRYAGAIN (their keys split between two nodes) and ASK.
// Before the hold, each such request was a 503 (911 of 971 in a 14.7 s move, measured): now the gateway
// holds it inside the request and answers 200 once the slot has settled, within REDIS_HOLD_MS.
it('moves the queue slot to another master under load: no 503, every answer within the hold, every acknowledged submission delivered once', async () => {
  const cluster = await startRedisCluster({ nodeTimeoutMs: 1_500 });
  const store = await openTestDatabase();
  const db = await store.read();
  const env = {
    REDIS_CLUSTER_NODES: cluster.seeds,
    QUEUE_NAME: `slot-move-${randomUUID()}`,
    REDIS_ACK_REPLICAS: '1',
    RATE_LIMIT_REQUESTS: '0', // all the load comes from 127.0.0.1
    LOG_LEVEL: 'silent',
    REDIS_HOLD_MS: String(HOLD_MS),
    ADMIN_TOKEN,
  };
  // What the worker reports as errors (BullMQ's 'error' events: a completion that failed, a fetch that did).
  const workerErrors: string[] = [];
  const workerLog = pino(
    { level: 'error' },
    {
      write(line: string) {
        const entry = JSON.parse(line) as { msg?: string; err?: { message?: string } };
        if (entry.msg === 'worker error') workerErrors.push((entry.err?.message ?? '').replace(/sub_\w+/, 'sub_…'));
      },
    },
  );
  const worker = await startWorker(workerConfig(env), workerLog, { crm: createPostgresCrm(db) });
  const gateway = await startGateway(gatewayConfig({ ...env, PORT: '0', HOST: '127.0.0.1' }));
  const queue = new Queue(env.QUEUE_NAME, {
    connection: createWorkerRedis(workerConfig(env).redis),
    prefix: '{forms}',
  });
  try {
    const slot = new Command('get', [`{forms}:${env.QUEUE_NAME}`]).getSlot();
    const tag = `sm${Date.now().toString(36)}`;
    let stopLoad = false;
    let acknowledgedSoFar = 0;
    const load = submitMany({
      urls: [gateway.url],
      count: 50_000,
      concurrency: 16,
      tag,
      // A hang is told apart from a held request by twice the hold.
      timeoutMs: 2 * HOLD_MS,
      stop: () => stopLoad,
    });
    const delivered = async () => {
      const { rows } = await db.query<{ email: string; n: number }>(
        'SELECT email, count(*)::int AS n FROM submissions WHERE email LIKE $1 GROUP BY email',
        [`${tag}-%`],
      );
      return new Map(rows.map((r) => [r.email, r.n]));
    };
    // The move falls on a load in its stride, with keys enough in the slot to migrate for seconds.
    await eventually(
      async () => {
        acknowledgedSoFar = (await delivered()).size;
        return acknowledgedSoFar >= 200;
      },
      {
        timeoutMs: 60_000,
        everyMs: 200,
        explain: () => `only ${acknowledgedSoFar} submissions delivered before the move`,
      },
    );
    const move = await cluster.moveSlot(slot, {
      batch: (keys) => Math.ceil(keys / (MIGRATING_MS / EVERY_MS)),
      everyMs: EVERY_MS,
    });
    const movedAt = Date.now();
    expect(await cluster.masterOf(slot)).toBe(move.to);
    // Load goes on until submissions flow on the new master: 100 more delivered after the move.
    const afterMove = (await delivered()).size;
    let deliveredNow = afterMove;
    await eventually(
      async () => {
        deliveredNow = (await delivered()).size;
        return deliveredNow >= afterMove + 100;
      },
      {
        timeoutMs: 60_000,
        everyMs: 200,
        explain: () => `${deliveredNow - afterMove} delivered after the move`,
      },
    );
    stopLoad = true;
    const answers = await load;

    const metrics = await (
      await fetch(`${gateway.url}/admin/metrics`, { headers: { authorization: `Bearer ${ADMIN_TOKEN}` } })
    ).text();
    const heldAndStored = Number(
      /^forms_submission_hold_duration_seconds_count\{[^}]*outcome="stored"[^}]*\} (\d+)/m.exec(metrics)?.[1] ?? 0,
    );
    const acknowledged = answers.filter((a) => a.status === 200);
    // Drained: everything acknowledged delivered (bounded; what is missing then is reported as lost).
    let seen = 0;
    await eventually(
      async () => {
        seen = (await delivered().catch(() => new Map())).size;
        return seen >= acknowledged.length;
      },
      {
        timeoutMs: 90_000,
        everyMs: 250,
        explain: () => `${seen} of ${acknowledged.length} acknowledged submissions delivered`,
      },
    ).catch(() => {});
    const result = compareDelivery(answers, await delivered());
    // The worker rode the move too: no job spent an attempt on it (a TRYAGAIN, a CLUSTERDOWN) nor failed.
    const spentAttempts = await attemptsSpent(queue);
    const slowest = Math.max(...answers.map((a) => a.ms));
    const duringMove = answers.filter((a) => a.at >= movedAt - move.migratingMs && a.at - a.ms <= movedAt);
    console.log(
      `[cluster] slot ${slot} moved ${move.from} → ${move.to}: ${move.keys} keys in ${move.migratingMs} ms; ` +
        `${JSON.stringify(countStatuses(answers))}, ${duringMove.length} answered while it moved, ` +
        `${heldAndStored} held and stored, slowest answer ${slowest.toFixed(0)} ms; ` +
        `${result.acknowledged} acknowledged, ${result.lost.length} lost, ${result.duplicated.length} duplicated; ` +
        `${spentAttempts.length} jobs spent an attempt; worker errors: ${JSON.stringify(countBy(workerErrors))}`,
    );
    // The move did run for seconds (the test paces it). How the requests met it (redirected, or held and
    // stored: the figure above) is the move's own timing; what is promised is that every one was answered 200
    // within the hold and stored once (before, the test also asserted that some had been held, and would have
    // failed a run where every request followed the move without waiting).
    expect(move.migratingMs).toBeGreaterThan(2_000);
    expect(countStatuses(answers)).toEqual({ 200: answers.length });
    expect(slowest).toBeLessThan(HOLD_MS + 1_000);
    expect(result.lost).toEqual([]);
    expect(result.duplicated).toEqual([]);
    expect(spentAttempts).toEqual([]);
    // Nor did a completion fail: before the worker rode redirections, each move cost dozens of
    // `Too many Cluster redirections. Last error: TRYAGAIN` and `Missing lock … moveToFinished` (a job left to
    // stall and be delivered again).
    expect(countBy(workerErrors)).toEqual({});
  } finally {
    await queue.close();
    await gateway.stop();
    await worker.stop();
    await store.close().catch(() => {});
    await cluster.stop();
  }
}, 240_000);

function countBy(values: string[]): Record<string, number> {
  const counts: Record<string, number> = {};
  for (const value of values) counts[value] = (counts[value] ?? 0) + 1;
  return counts;
}
