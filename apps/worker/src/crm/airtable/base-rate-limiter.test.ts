import { Redis } from 'ioredis';
import { afterAll, expect, inject, it } from 'vitest';
import { createBaseRateLimiter } from './base-rate-limiter.ts';

const clients: Redis[] = [];
afterAll(() => {
  for (const c of clients) c.disconnect();
});
/** Two limiters on two connections stand for two worker processes sharing one base. */
function limiterPair(baseId: string, requestsPerSecond: number) {
  return [0, 1].map(() => {
    const redis = new Redis(inject('redisUrl'));
    clients.push(redis);
    return createBaseRateLimiter({ redis, baseId, requestsPerSecond, keyPrefix: 'test-airtable' });
  });
}

it('spaces the slots of every process sharing a base evenly', async () => {
  const [a, b] = limiterPair(`appSpacing${Date.now()}`, 20); // one slot per 50 ms
  const granted: number[] = [];
  const take = async (limiter: typeof a, n: number) => {
    for (let i = 0; i < n; i++) {
      await limiter!.acquire();
      granted.push(performance.now());
    }
  };
  const started = performance.now();
  await Promise.all([take(a, 10), take(b, 10)]);
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
  await a!.acquire();
  await a!.pause(300);
  const started = performance.now();
  await b!.acquire();
  expect(performance.now() - started).toBeGreaterThanOrEqual(290);
  expect(await b!.rateLimitedCount()).toBe(1);
});
