import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { type LocalRedis, startRedisServer } from '@forms/local-services';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { openTestDatabase, type TestDatabase } from '../support/crm-database.ts';
import { type AppProcess, spawnGateway, spawnWorker } from '../support/spawn-app.ts';
import { sleep } from '../support/wait.ts';

// Restarts its own redis-server, so it never touches the shared test Redis.
const dataDir = mkdtempSync(join(tmpdir(), 'forms-redis-sigterm-'));
let redis: LocalRedis;
let store: TestDatabase;
const started: AppProcess[] = [];
/** How long Redis stays down: the apps' connections are reconnecting when it comes back. */
const REDIS_DOWN_MS = 1_500;

beforeAll(async () => {
  redis = await startRedisServer({ dir: dataDir });
  store = await openTestDatabase({ shareable: true });
});
afterAll(async () => {
  for (const app of started) if (app.child.exitCode === null) app.child.kill('SIGKILL');
  await redis?.stop();
  await store?.close();
  rmSync(dataDir, { recursive: true, force: true });
});

// A rolling restart just after a Redis restart or failover: the apps' connections are between two retries
// (ioredis's retry timer armed, no socket) when SIGTERM comes. A worker used to wait out its whole
// SHUTDOWN_TIMEOUT_MS and exit 1: BullMQ's close waits for its blocking connection to end, and ioredis
// never ended a connection told to disconnect while reconnecting (patches/ioredis@6.0.0.patch).
describe('told to stop while its Redis connections reconnect', () => {
  const apps = {
    worker: (queue: string) => spawnWorker({ ...store.workerEnv, REDIS_URL: redis.url, QUEUE_NAME: queue }),
    gateway: (queue: string) => spawnGateway({ REDIS_URL: redis.url, QUEUE_NAME: queue }),
  };
  it.each([
    ['worker', 0],
    ['worker', 250],
    ['gateway', 0],
  ] as const)(
    'the %s exits 0 within seconds when SIGTERM comes %i ms after Redis is back',
    async (app, delayMs) => {
      const running = await apps[app](`sigterm-reconnect-${app}-${delayMs}`);
      started.push(running);
      await redis.stop();
      await sleep(REDIS_DOWN_MS);
      redis = await startRedisServer({ port: redis.port, dir: dataDir });
      await sleep(delayMs);
      const told = Date.now();
      running.child.kill('SIGTERM');
      expect(await running.exited, running.output()).toBe(0);
      expect(Date.now() - told).toBeLessThan(5_000);
    },
    40_000,
  );
});
