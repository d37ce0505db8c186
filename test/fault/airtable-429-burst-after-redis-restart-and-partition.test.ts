import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { type LocalRedis, startRedisServer } from '@forms/local-services';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { acknowledgedBacklog, expectDrainedWithinTheLimit } from '../support/airtable-drain.ts';
import { type FakeAirtable, startFakeAirtable } from '../support/airtable-server.ts';
import { airtableWorkerEnv } from '../support/airtable-worker.ts';
import { airtableSeen, LOADED_MACHINE_ROOM } from '../support/drain-pace.ts';
import { spawnWorker, type WorkerProcess } from '../support/spawn-app.ts';
import { startTcpProxy, type TcpProxy } from '../support/tcp-proxy.ts';
import { eventually, scaled } from '../support/wait.ts';

// The harness, scaled down: two worker processes draining into a base limited to 5 requests in
// any second (300 ms per request), through a Redis that is SIGKILLed and restarted on its append-only
// file, then cut off for 5 s with every byte held. Each outage ended with two 429s: the slots reserved
// and confirmed before it were all spent the moment Redis answered again.
const TOTAL = scaled(900, 400);
const BASE = `appOutage${Date.now().toString(36)}`;
const KEY = 'patOutage';
const PARTITION_MS = 5_000;
/** Redis's appendfsync everysec, and a tenth more: the backlog is on disk before Redis is killed. */
const ON_DISK_MS = 1_100;
const dataDir = mkdtempSync(join(tmpdir(), 'forms-redis-outage-'));
let redis: LocalRedis;
let proxy: TcpProxy;
let server: FakeAirtable;
const workers: WorkerProcess[] = [];

beforeAll(async () => {
  redis = await startRedisServer({ dir: dataDir });
  proxy = await startTcpProxy(redis.port);
  server = await startFakeAirtable({ apiKey: KEY, rateLimit: { requests: 5, windowMs: 1_000, lockoutMs: 30_000 } });
  server.faults.latencyMs = 300;
});
afterAll(async () => {
  for (const w of workers) if (w.child.exitCode === null) w.child.kill('SIGKILL');
  await server?.close();
  await proxy?.close();
  await redis?.stop();
  rmSync(dataDir, { recursive: true, force: true });
});

describe('two workers draining into Airtable through a Redis restart and a partition', () => {
  it('sends no 429, never more than 5 requests in a second, and no long gap', async () => {
    const { acknowledged, queueName } = await acknowledgedBacklog(redis.url, TOTAL);
    await sleep(ON_DISK_MS);
    const env = {
      ...airtableWorkerEnv(server, { apiKey: KEY, baseId: BASE, queueName }),
      REDIS_URL: `redis://127.0.0.1:${proxy.port}`,
    };
    workers.push(await spawnWorker(env), await spawnWorker(env));
    const outages: { start: number; end: number }[] = [];
    const requestsSoFar = () => server.stats.requests;

    // Ten requests at the CRM's 4 a second; after the restart twenty more, once the workers are back (ioredis's
    // longest reconnect step, 2 s); each with room for a loaded machine.
    const explain = () => airtableSeen(server, workers);
    const within = (requests: number, plusMs = 0) => ((requests / 4) * 1000 + plusMs) * LOADED_MACHINE_ROOM;
    await eventually(async () => requestsSoFar() >= 10, { timeoutMs: within(10), everyMs: 50, explain });
    let start = Date.now();
    redis.process.kill('SIGKILL');
    await redis.stop();
    redis = await startRedisServer({ port: redis.port, dir: dataDir });
    outages.push({ start, end: Date.now() });

    const afterRestart = requestsSoFar();
    await eventually(async () => requestsSoFar() >= afterRestart + 20, {
      timeoutMs: within(20, 2_000),
      everyMs: 50,
      explain,
    });
    start = Date.now();
    proxy.hold();
    await sleep(PARTITION_MS);
    proxy.heal();
    outages.push({ start, end: Date.now() });

    const figures = await expectDrainedWithinTheLimit(server, {
      baseId: BASE,
      redisUrl: redis.url,
      queueName,
      acknowledged,
      outages,
    });
    console.log(`drain through a Redis restart and a ${PARTITION_MS} ms partition: ${JSON.stringify(figures)}`);
    for (const w of workers) w.child.kill('SIGTERM');
    expect(await Promise.all(workers.map((w) => w.exited))).toEqual([0, 0]);
  }, 180_000);
});
