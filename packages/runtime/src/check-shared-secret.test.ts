import { randomUUID } from 'node:crypto';
import { Redis } from 'ioredis';
import { afterAll, beforeAll, expect, inject, it } from 'vitest';
import { checkSharedSecret } from './check-shared-secret.ts';

let redis: Redis;
beforeAll(() => {
  redis = new Redis(inject('redisUrl'));
});
afterAll(() => redis.disconnect());

it('of two first starts with different secrets, one records and the other differs; a dry run records nothing', async () => {
  const key = `secret-check-test:${randomUUID()}`;
  expect(await checkSharedSecret(redis, { key, values: ['a'], record: false })).toBe('unrecorded');
  expect(await redis.exists(key)).toBe(0);
  const outcomes = await Promise.all([
    checkSharedSecret(redis, { key, values: ['a'] }),
    checkSharedSecret(redis, { key, values: ['b'] }),
  ]);
  expect(outcomes.sort()).toEqual(['differs', 'recorded']);
  const winner = (await redis.get(key))!;
  expect(await checkSharedSecret(redis, { key, values: [winner] })).toBe('agrees');
  // In a rotation window a process holds the new value and the previous one: either agrees.
  expect(await checkSharedSecret(redis, { key, values: ['new', winner] })).toBe('agrees');
  expect(await checkSharedSecret(redis, { key, values: ['new'] })).toBe('differs');
  await redis.del(key);
});
