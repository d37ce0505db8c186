import { setTimeout as sleep } from 'node:timers/promises';
import { AIRTABLE_REQUEST_BUCKET_MS, airtableBaseKeys } from '@forms/schemas';
import { Redis } from 'ioredis';
import { afterAll, expect, inject, it } from 'vitest';
import { createWorkerMetrics } from '../../worker-metrics.ts';
import { AirtableApiError, type AirtableClient } from './airtable-client.ts';
import { createBaseRateLimiter } from './base-rate-limiter.ts';
import { countRequests } from './count-requests.ts';

const redis = new Redis(inject('redisUrl'));
afterAll(() => redis.disconnect());

it('the rate limiter writes the keys `ops status` reads (airtableBaseKeys)', async () => {
  const baseId = `appKeys${Date.now()}`;
  const limiter = createBaseRateLimiter({ redis, baseId, limit: 110, requestsPerSecond: 100 });
  await limiter.take();
  await limiter.pause(5_000);
  const keys = airtableBaseKeys(baseId);
  expect(Number(await redis.get(keys.pausedUntil))).toBeGreaterThan(Date.now());
  expect(await redis.get(keys.rateLimited)).toBe('1');
  expect(await redis.exists(keys.nextSlot)).toBe(1);
});

it('counts each request by status in the metrics and in the base’s Redis bucket', async () => {
  const baseId = `appCount${Date.now()}`;
  const metrics = createWorkerMetrics();
  let answer: 'ok' | '429' | '503' = 'ok';
  const fake: AirtableClient = {
    async upsert() {
      if (answer === 'ok') return { records: [], createdRecords: [], updatedRecords: [] };
      throw new AirtableApiError(Number(answer), 'X', 'refused', undefined);
    },
  };
  const client = countRequests(fake, { redis, baseId, metrics });
  await client.upsert('T', [{}], ['A']);
  answer = '429';
  await expect(client.upsert('T', [{}], ['A'])).rejects.toThrow('refused');
  answer = '503';
  await expect(client.upsert('T', [{}], ['A'])).rejects.toThrow('refused');
  const text = await metrics.registry.metrics();
  expect(text).toContain('forms_crm_requests_total{crm="airtable",status="200",app="worker"} 1');
  expect(text).toContain('forms_crm_requests_total{crm="airtable",status="429",app="worker"} 1');
  expect(text).toContain('forms_crm_rate_limited_total{crm="airtable",app="worker"} 1');
  await sleep(50); // the bucket write is not awaited by the request
  const keys = airtableBaseKeys(baseId);
  const bucket = Math.floor(Date.now() / AIRTABLE_REQUEST_BUCKET_MS);
  const counts = await redis.mget(keys.requests(bucket), keys.requests(bucket - 1));
  expect(counts.reduce((sum, n) => sum + Number(n ?? 0), 0)).toBe(3);
});
