import { setTimeout as sleep } from 'node:timers/promises';
import { airtableBaseKeys } from '@forms/schemas';
import { Redis } from 'ioredis';
import { afterAll, expect, inject, it } from 'vitest';
import { type BaseRateLimiter, createBaseRateLimiter, sendSpacing } from './base-rate-limiter.ts';

const clients: Redis[] = [];
afterAll(() => {
  for (const c of clients) c.disconnect();
});
function connect() {
  const redis = new Redis(inject('redisUrl'));
  clients.push(redis);
  return redis;
}
const KEY_PREFIX = 'test-airtable';
/** Two limiters on two connections stand for two worker processes sharing one base. */
function limiterPair(baseId: string, requestsPerSecond: number) {
  return [0, 1].map(() =>
    createBaseRateLimiter({
      redis: connect(),
      baseId,
      limit: requestsPerSecond * 1.1,
      requestsPerSecond,
      keyPrefix: KEY_PREFIX,
    }),
  );
}
/** Takes a slot the way the batcher does: ask, wait as told, ask again (bounded). */
async function acquire(limiter: BaseRateLimiter) {
  for (let turn = 0; turn < 1_000; turn++) {
    const grant = await limiter.take();
    if (grant.granted) return;
    await sleep(grant.waitMs);
  }
  throw new Error('no slot in 1,000 turns');
}

it('spaces the slots of every process sharing a base evenly', async () => {
  const [a, b] = limiterPair(`appSpacing${Date.now()}`, 20); // one slot per 50 ms
  const granted: number[] = [];
  const take = async (limiter: BaseRateLimiter, n: number) => {
    for (let i = 0; i < n; i++) {
      await acquire(limiter);
      granted.push(performance.now());
    }
  };
  const started = performance.now();
  await Promise.all([take(a!, 10), take(b!, 10)]);
  granted.sort((x, y) => x - y);
  // Observed grant times carry event-loop lateness (a late grant can sit close to the next one on a busy
  // machine), so check spans of many slots, where lateness is small against the spacing: 10 consecutive
  // grants must span 9 intervals less a 60 ms allowance. Two unshared limiters would span about half that.
  expect(performance.now() - started).toBeGreaterThanOrEqual(19 * 50 - 60);
  for (let i = 0; i + 9 < granted.length; i++) {
    expect(granted[i + 9]! - granted[i]!).toBeGreaterThanOrEqual(9 * 50 - 60);
  }
});

it('after a pause grants nothing until it ends, for every process, and counts the 429', async () => {
  const [a, b] = limiterPair(`appPause${Date.now()}`, 50);
  await acquire(a!);
  await a!.pause(300);
  expect(await b!.freeInMs()).toBeGreaterThan(250);
  const started = performance.now();
  await acquire(b!);
  expect(performance.now() - started).toBeGreaterThanOrEqual(290);
  expect(await b!.rateLimitedCount()).toBe(1);
});

// The 429 burst after every Redis outage: commands held up by the outage all ran the moment Redis answered
// again, and each process sent as soon as its (long-awaited) answer said go.
it('redis-stall-releases-held-grants-at-once: a grant answered late is spent, not used', async () => {
  const [a, b] = limiterPair(`appStall${Date.now()}`, 20);
  await acquire(a!); // past each process's first, settling take
  await acquire(b!);
  await sleep(60); // the base is free again
  const admin = connect();
  await admin.call('CLIENT', 'PAUSE', '400', 'ALL');
  const held = await Promise.all([a!.take(), b!.take()]);
  expect(held.filter((g) => g.granted)).toEqual([]);
  expect(a!.staleGrants() + b!.staleGrants()).toBe(1); // the slot went to one of them, unused
  // Afterwards grants come again, one interval apart.
  await acquire(a!);
  expect((await b!.take()).granted).toBe(false);
});

it('redis-restart-lost-the-slot: after a (re)connection the first grant waits one interval', async () => {
  const baseId = `appRestart${Date.now()}`;
  const redis = connect();
  const limiter = createBaseRateLimiter({ redis, baseId, limit: 5, requestsPerSecond: 4.5, keyPrefix: KEY_PREFIX });
  const { intervalMs } = sendSpacing({ limit: 5, requestsPerSecond: 4.5 });
  const first = await limiter.take(); // a fresh process knows nothing of the last send either
  expect(first).toEqual({ granted: false, waitMs: expect.any(Number) });
  await sleep(intervalMs);
  await acquire(limiter);
  // A restart from an append-only file that lost the last second: the slot key is gone, the connection new.
  const keys = airtableBaseKeys(baseId, KEY_PREFIX);
  await connect().del(keys.nextSlot);
  const ready = new Promise((resolve) => redis.once('ready', resolve));
  redis.disconnect(true);
  await ready;
  const afterRestart = await limiter.take();
  expect(afterRestart.granted).toBe(false);
  expect((afterRestart as { waitMs: number }).waitMs).toBeGreaterThan(intervalMs - 20);
});

it('states the spacing: 5/s less 10 % is 223 ms apart, grants at most 57 ms late', () => {
  expect(sendSpacing({ limit: 5, requestsPerSecond: 4.5 })).toEqual({
    intervalMs: 223,
    slackMs: 115,
    maxGrantLagMs: 57,
  });
});
