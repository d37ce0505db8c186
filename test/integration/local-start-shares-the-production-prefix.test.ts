import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { Redis } from 'ioredis';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { type StartProcess, spawnStart } from '../support/spawn-start.ts';
import { validBody } from '../support/valid-bodies.ts';

// Without REDIS_URL, `pnpm start` runs a redis-server of its own with its data under DATA_DIR; it never
// uses a Redis that happens to answer on 6379, whose keys under the same prefix may be another
// deployment's (an erasure marker kept for ever there changed every later local start). It also makes a
// local ERASURE_KEY once and keeps it in DATA_DIR, so the local erase recipe needs no setting.
let start: StartProcess;

beforeAll(async () => {
  start = await spawnStart({ REDIS_URL: undefined, REDIS_CLUSTER_NODES: undefined, ERASURE_KEY: undefined });
}, 120_000);
afterAll(() => start?.stop());

it('uses a redis-server of its own under DATA_DIR, and the jobs land there', async () => {
  const started = /"url":"(redis:\/\/127\.0\.0\.1:(\d+))","dir":"([^"]+)","msg":"started a local redis-server/.exec(
    start.output(),
  );
  expect(started, start.output()).not.toBeNull();
  expect(started![2]).not.toBe('6379');
  expect(started![3]).toBe(join(start.dataDir, 'redis'));
  expect(start.output()).toContain(`(redis ${started![1]},`);
  const res = await fetch(`${start.url}/api/contact`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify(validBody('contact', 'local-redis')),
  });
  expect(res.status).toBe(200);
  const redis = new Redis(started![1]!);
  try {
    expect(await redis.dbsize()).toBeGreaterThan(0);
  } finally {
    redis.disconnect();
  }
});

it('keeps a local ERASURE_KEY in DATA_DIR', () => {
  expect(readFileSync(join(start.dataDir, 'erasure-key'), 'utf8').trim().length).toBeGreaterThanOrEqual(32);
});
