import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { type LocalRedis, startRedisServer } from '@forms/local-services';
import { airtableBaseKeys } from '@forms/schemas';
import { loadConfig, type RunningWorker, startWorker } from '@forms/worker';
import { Redis } from 'ioredis';
import { afterAll, expect, it } from 'vitest';
import { acknowledgedBacklog } from '../support/airtable-drain.ts';
import { type FakeAirtable, startFakeAirtable } from '../support/airtable-server.ts';
import { airtableWorkerEnv } from '../support/airtable-worker.ts';
import { eventually } from '../support/wait.ts';

// A 429 pauses the base for Airtable's lock-out, and the pause lives in Redis (shared by every worker).
// Redis restarted from a snapshot taken before the 429 (an RDB, a replica that had not yet received it, or
// no persistence at all) comes back without it: a worker that then looks (one started after the restart,
// or one that was idle) was granted a request at once, into the lock-out, answered 429. The worker that
// met or saw the pause puts it back when it reconnects, so the other waits the lock-out out too.
const KEY = 'patPauseRestart';
const BASE = `appPause${Date.now().toString(36)}`;
const LOCKOUT_MS = 5_000;
// Snapshot only (no append-only file), so the restart brings the backlog back and not the pause.
const SNAPSHOT_ONLY = ['--appendonly', 'no'];
const dataDir = mkdtempSync(join(tmpdir(), 'forms-redis-pause-'));
let redis: LocalRedis | undefined;
let server: FakeAirtable | undefined;
const workers: RunningWorker[] = [];

afterAll(async () => {
  // Airtable gone first: the workers' waiting jobs then fail fast (and stay in Redis for a retry) instead of
  // sitting out one lock-out after another at a pace the server refuses, which held the stop for 20 s.
  await server?.close();
  await Promise.all(workers.map((w) => w.stop()));
  await redis?.stop();
  rmSync(dataDir, { recursive: true, force: true });
});

it('sends nothing into the lock-out after a Redis restart lost the 429 pause', async () => {
  redis = await startRedisServer({ dir: dataDir, args: SNAPSHOT_ONLY });
  // 2 requests a second at Airtable, under the worker's 4: the third request meets a 429 and a lock-out.
  server = await startFakeAirtable({ apiKey: KEY, rateLimit: { requests: 2, windowMs: 1_000, lockoutMs: LOCKOUT_MS } });
  const { queueName } = await acknowledgedBacklog(redis.url, 60);
  const admin = new Redis(redis.url);
  await admin.save();

  const env = {
    ...airtableWorkerEnv(server, { apiKey: KEY, baseId: BASE, queueName }),
    REDIS_URL: redis.url,
    AIRTABLE_LOCKOUT_MS: String(LOCKOUT_MS),
    RETRY_BASE_DELAY_MS: '20',
    LOG_LEVEL: 'silent',
  };
  workers.push(await startWorker(loadConfig(env)));
  await eventually(async () => server!.stats.rateLimited > 0, { timeoutMs: 30_000, everyMs: 10 });
  const first429 = server.stats.log.find((r) => r.status === 429)!.at;
  // The pause is in Redis (the worker recorded it), and then lost.
  await eventually(async () => (await admin.exists(airtableBaseKeys(BASE).pausedUntil)) === 1, {
    timeoutMs: 2_000,
    everyMs: 10,
  });
  admin.disconnect();

  // Restarted from the snapshot: the backlog is back, the pause is not.
  redis.process.kill('SIGKILL');
  await redis.stop();
  redis = await startRedisServer({ port: redis.port, dir: dataDir, args: SNAPSHOT_ONLY });
  // A second worker starts (a deploy, a crash-loop's restart) with the backlog to send.
  workers.push(await startWorker(loadConfig(env)));
  const restartedWithin = Date.now() - first429;
  expect(restartedWithin).toBeLessThan(LOCKOUT_MS - 1_000); // both did fall inside the lock-out

  // Requests flow again once the lock-out is over; every one before its end was sent into it.
  await eventually(async () => server!.stats.log.some((r) => r.at >= first429 + LOCKOUT_MS && r.status === 200), {
    timeoutMs: 30_000,
    everyMs: 100,
  });
  const intoTheLockout = server.stats.log.filter((r) => r.at > first429 && r.at < first429 + LOCKOUT_MS);
  console.log(
    `[fault] 429 pause, then a Redis restart and a second worker ${restartedWithin} ms into the ${LOCKOUT_MS} ms lock-out: ` +
      `${intoTheLockout.length} requests sent into it (${JSON.stringify(server.stats.byStatus)} in all)`,
  );
  expect(intoTheLockout).toEqual([]);
}, 90_000);
