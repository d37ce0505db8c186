import { setTimeout as sleep } from 'node:timers/promises';
import { Redis } from 'ioredis';
import { afterAll, expect, inject, it } from 'vitest';
import { createMergeKeyGuard } from './merge-key-guard.ts';

const redis = new Redis(inject('redisUrl'), { maxRetriesPerRequest: null });
afterAll(() => redis.disconnect());

it('leases a record to one request at a time, and reports the fields newer writes set', async () => {
  const queueName = `guard-${Date.now()}`;
  const guard = createMergeKeyGuard({ redis, queueName, leaseMs: 5_000 });
  const record = { table: 'Contacts', mergeValue: 'ada@acme.io' };
  const newer = { ...record, stamp: '000000000002000|sub_2', fields: ['Name', 'Budget'] };
  const older = { ...record, stamp: '000000000001000|sub_1', fields: ['Name', 'Message'] };

  const a = guard.token();
  expect(await guard.claim(a, [newer])).toEqual([{ busy: false, covered: [], crmRecordId: undefined }]);
  const [busy] = await guard.claim(guard.token(), [older]);
  expect(busy).toMatchObject({ busy: true });
  expect((busy as { retryInMs: number }).retryInMs).toBeGreaterThan(4_000);
  await guard.applied(a, [{ ...newer, crmRecordId: 'recA' }]);

  // Free again; the older write may only add what no newer one set.
  expect(await guard.claim(guard.token(), [older])).toEqual([{ busy: false, covered: ['Name'], crmRecordId: 'recA' }]);

  // No email in any key name, and every key in the queue's hash slot.
  const keys = await redis.keys(`forms:{${queueName}}:*`);
  expect(keys.length).toBe(2);
  for (const key of keys) expect(key).not.toContain('ada');
});

it('leaves a lease to run out when it is not released (a request that may still land)', async () => {
  const guard = createMergeKeyGuard({ redis, queueName: `guard-ttl-${Date.now()}`, leaseMs: 150 });
  const write = { table: 'Signups', mergeValue: 'sub_x', fields: ['Email'] };
  expect((await guard.claim(guard.token(), [write]))[0]).toMatchObject({ busy: false });
  expect((await guard.claim(guard.token(), [write]))[0]).toMatchObject({ busy: true });
  await sleep(200);
  expect((await guard.claim(guard.token(), [write]))[0]).toMatchObject({ busy: false });
});
