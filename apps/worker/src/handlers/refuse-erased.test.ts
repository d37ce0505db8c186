import { randomUUID } from 'node:crypto';
import { erasureKeys, erasureSubject, type JobPayload, secretCheckValue, sharedSecretKeys } from '@forms/schemas';
import { Redis } from 'ioredis';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { createErasureCheck } from './refuse-erased.ts';

const SECRET = 'a-test-erasure-key-of-32-characters!';
let redis: Redis;
beforeAll(() => {
  redis = new Redis(inject('redisUrl'), { maxRetriesPerRequest: null });
});
afterAll(() => redis.disconnect());

function contact(email: string, acceptedAt: number): JobPayload {
  return {
    v: 1,
    kind: 'contact',
    submissionId: 'sub_1',
    recordId: 'con_1',
    acceptedAt: new Date(acceptedAt).toISOString(),
    data: { email },
  };
}

describe('the tombstone check before any CRM write', () => {
  it('refuses a job accepted before its address was erased, lets a later one through, and ignores other addresses', async () => {
    const queueName = `tomb-${randomUUID()}`;
    const settings = { prefix: 'bull' };
    const erasedAt = Date.now();
    const keys = erasureKeys(settings, queueName);
    await redis.set(keys.tombstone(erasureSubject(SECRET, 'ada@acme.io')), String(erasedAt), 'PX', 60_000);
    const isErased = createErasureCheck({ redis, settings, queueName, secret: SECRET });
    expect(await isErased(contact('ada@acme.io', erasedAt - 1))).toBe(true);
    expect(await isErased(contact('ada@acme.io', erasedAt))).toBe(true);
    expect(await isErased(contact('ada@acme.io', erasedAt + 1))).toBe(false); // a new, consented submission
    expect(await isErased(contact('grace@acme.io', erasedAt - 1))).toBe(false);
    // A key made with another secret names another tombstone: the check needs the erasing side's key.
    const otherKey = createErasureCheck({ redis, settings, queueName, secret: `${SECRET}-other` });
    expect(await isErased(contact('ADA@acme.io', erasedAt - 1))).toBe(true);
    expect(await otherKey(contact('ada@acme.io', erasedAt - 1))).toBe(false);
  });

  it('without ERASURE_KEY: delivers while no erase was ever recorded, then holds jobs (a retryable error naming the setting)', async () => {
    const queueName = `tomb-${randomUUID()}`;
    const settings = { prefix: 'bull' };
    const isErased = createErasureCheck({ redis, settings, queueName, secret: undefined });
    expect(await isErased(contact('ada@acme.io', Date.now()))).toBe(false);
    await redis.set(erasureKeys(settings, queueName).anyErasure, String(Date.now()), 'PX', 60_000);
    await expect(isErased(contact('ada@acme.io', Date.now()))).rejects.toThrow(/ERASURE_KEY is not set/);
  });

  it('with an ERASURE_KEY that differs from the recorded one: holds every job, erased or not (a retryable error naming the setting)', async () => {
    const queueName = `tomb-${randomUUID()}`;
    const settings = { prefix: 'bull' };
    await redis.set(
      sharedSecretKeys(settings, queueName, 'ERASURE_KEY').check,
      secretCheckValue('ERASURE_KEY', SECRET),
    );
    const agreeing = createErasureCheck({ redis, settings, queueName, secret: SECRET });
    expect(await agreeing(contact('grace@acme.io', Date.now()))).toBe(false);
    const differing = createErasureCheck({ redis, settings, queueName, secret: `${SECRET}-other` });
    const refusal = differing(contact('grace@acme.io', Date.now()));
    await expect(refusal).rejects.toThrow(/ERASURE_KEY differs/);
    await expect(refusal).rejects.not.toThrow(SECRET);
  });

  it('in a rotation window (ERASURE_KEY_PREVIOUS): agrees with either recorded value and finds a tombstone under either key', async () => {
    const queueName = `tomb-${randomUUID()}`;
    const settings = { prefix: 'bull' };
    const NEW = `${SECRET}-new`;
    const erasedAt = Date.now();
    // Recorded, and the tombstone written, under the old key.
    await redis.set(
      sharedSecretKeys(settings, queueName, 'ERASURE_KEY').check,
      secretCheckValue('ERASURE_KEY', SECRET),
    );
    await redis.set(
      erasureKeys(settings, queueName).tombstone(erasureSubject(SECRET, 'ada@acme.io')),
      String(erasedAt),
    );
    const rotating = createErasureCheck({ redis, settings, queueName, secret: NEW, previousSecret: SECRET });
    expect(await rotating(contact('ada@acme.io', erasedAt - 1))).toBe(true);
    expect(await rotating(contact('grace@acme.io', erasedAt - 1))).toBe(false);
    // Once `ops rekey ERASURE_KEY` recorded the new key, it still agrees, and the old tombstone still counts.
    await redis.set(sharedSecretKeys(settings, queueName, 'ERASURE_KEY').check, secretCheckValue('ERASURE_KEY', NEW));
    expect(await rotating(contact('ada@acme.io', erasedAt - 1))).toBe(true);
    // The new key alone misses the old tombstone: why ERASURE_KEY_PREVIOUS stays for ERASURE_TOMBSTONE_DAYS.
    const newOnly = createErasureCheck({ redis, settings, queueName, secret: NEW });
    expect(await newOnly(contact('ada@acme.io', erasedAt - 1))).toBe(false);
  });
});
