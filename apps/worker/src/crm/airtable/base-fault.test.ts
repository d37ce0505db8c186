import { setTimeout as sleep } from 'node:timers/promises';
import { Redis } from 'ioredis';
import { pino } from 'pino';
import { afterAll, expect, inject, it } from 'vitest';
import { airtableBaseFaultKey, readAirtableBaseFault, watchBaseFault } from './base-fault.ts';

const redis = new Redis(inject('redisUrl'), { maxRetriesPerRequest: null });
afterAll(() => redis.disconnect());

it('records a fault for readers, keeps when it began across probes, and clears it on success', async () => {
  const baseId = `appFault${Date.now().toString(36)}`;
  const watch = watchBaseFault({ redis, baseId, logger: pino({ level: 'silent' }) });
  expect(await readAirtableBaseFault(redis, baseId)).toBeUndefined();

  await watch.met('Contacts', { status: 404, type: 'TABLE_NOT_FOUND', message: 'no table' }, 60_000);
  const first = await readAirtableBaseFault(redis, baseId);
  expect(first).toMatchObject({
    status: 404,
    type: 'TABLE_NOT_FOUND',
    variable: expect.stringMatching(/AIRTABLE_BASE_ID/),
  });
  await sleep(5);
  await watch.met('Contacts', { status: 404, type: 'TABLE_NOT_FOUND', message: 'no table' }, 60_000);
  const again = await readAirtableBaseFault(redis, baseId);
  expect(again!.since).toBe(first!.since);
  expect(again!.checkedAt > first!.checkedAt).toBe(true);
  expect(await redis.pttl(airtableBaseFaultKey(baseId))).toBeGreaterThan(50_000); // expires unless probed again

  await watch.cleared('Signups'); // another table's success says nothing about this one
  expect(await readAirtableBaseFault(redis, baseId)).toBeDefined();
  await watch.cleared('Contacts');
  expect(await readAirtableBaseFault(redis, baseId)).toBeUndefined();
});
