import { pino } from 'pino';
import { afterEach, describe, expect, it } from 'vitest';
import { PermanentCrmError } from '../crm.ts';
import { AirtableApiError, type AirtableClient } from './airtable-client.ts';
import type { BaseRateLimiter } from './base-rate-limiter.ts';
import { createUpsertBatcher, type UpsertBatcher } from './upsert-batcher.ts';

const logger = pino({ level: 'silent' });
const write = (key: string) => ({ table: 'T', mergeOn: 'Key', mergeValue: key, fields: { Key: key } });

/** A limiter that grants at once and records pauses; the shared one is tested against Redis. */
function freeLimiter(pauses: number[] = []): BaseRateLimiter {
  return {
    acquire: async () => {},
    pause: async (ms) => void pauses.push(ms),
    rateLimitedCount: async () => pauses.length,
  };
}

/** A client whose answer to each request is decided by `answer`; it records the keys of every request. */
function scriptedClient(answer: (keys: string[], call: number) => Error | undefined) {
  const requests: string[][] = [];
  const client: AirtableClient = {
    async upsert(_table, records) {
      const keys = records.map((r) => String(r.Key));
      requests.push(keys);
      await new Promise((r) => setTimeout(r, 5));
      const err = answer(keys, requests.length);
      if (err) throw err;
      return {
        records: keys.map((k) => ({ id: `rec_${k}`, fields: { Key: k } })),
        createdRecords: [],
        updatedRecords: [],
      };
    },
  };
  return { client, requests };
}

let batcher: UpsertBatcher | undefined;
afterEach(async () => batcher?.close());

describe('the upsert batcher', () => {
  it('coalesces concurrent writes into requests of at most ten and resolves each with its record id', async () => {
    const { client, requests } = scriptedClient(() => undefined);
    let release!: () => void;
    const gate = new Promise<void>((r) => (release = r));
    batcher = createUpsertBatcher({
      client,
      limiter: { ...freeLimiter(), acquire: () => gate },
      lockoutMs: 1_000,
      logger,
    });
    const results = Promise.all(
      Array.from({ length: 25 }, (_, i) => batcher!.enqueue(write(`k${i}`), '2026-01-01T00:00:00Z')),
    );
    release();
    expect((await results)[7]).toEqual({ crmRecordId: 'rec_k7' });
    expect(requests.map((r) => r.length)).toEqual([10, 10, 5]);
  });

  it('splits a batch Airtable refuses until the bad record stands alone, and fails only that one', async () => {
    const invalid = new AirtableApiError(
      422,
      'INVALID_VALUE_FOR_COLUMN',
      'Field "Key" cannot accept the provided value',
      undefined,
    );
    const { client, requests } = scriptedClient((keys) => (keys.includes('bad') ? invalid : undefined));
    batcher = createUpsertBatcher({ client, limiter: freeLimiter(), lockoutMs: 1_000, logger });
    const keys = ['a', 'b', 'c', 'bad', 'd', 'e', 'f', 'g', 'h', 'i'];
    const outcomes = await Promise.allSettled(keys.map((k) => batcher!.enqueue(write(k), '2026-01-01T00:00:00Z')));
    const rejected = outcomes.flatMap((o, i) => (o.status === 'rejected' ? [[keys[i], o.reason]] : []));
    expect(rejected).toHaveLength(1);
    expect(rejected[0]![0]).toBe('bad');
    expect(rejected[0]![1]).toBeInstanceOf(PermanentCrmError);
    expect(String(rejected[0]![1].message)).toContain('INVALID_VALUE_FOR_COLUMN');
    expect(requests.length).toBeLessThanOrEqual(7); // bisection: 10 → 5+5 → 3+2 → 2+1 → 1+1
  });

  it('after a 429 pauses the base and sends the same records again, failing none', async () => {
    const pauses: number[] = [];
    const { client, requests } = scriptedClient((_, call) =>
      call === 1 ? new AirtableApiError(429, 'RATE_LIMIT_REACHED', 'slow down', 2_000) : undefined,
    );
    batcher = createUpsertBatcher({ client, limiter: freeLimiter(pauses), lockoutMs: 30_000, logger });
    const results = await Promise.all(['a', 'b'].map((k) => batcher!.enqueue(write(k), '2026-01-01T00:00:00Z')));
    expect(results).toEqual([{ crmRecordId: 'rec_a' }, { crmRecordId: 'rec_b' }]);
    expect(pauses).toEqual([2_000]); // Retry-After wins over the default lock-out
    expect(requests).toEqual([
      ['a', 'b'],
      ['a', 'b'],
    ]);
    expect(batcher.stats().rateLimited).toBe(1);
  });

  it('fails every record of a request that met a 5xx with a retryable error', async () => {
    const { client } = scriptedClient(() => new AirtableApiError(503, 'SERVICE_UNAVAILABLE', 'down', undefined));
    batcher = createUpsertBatcher({ client, limiter: freeLimiter(), lockoutMs: 1_000, logger });
    const outcomes = await Promise.allSettled(
      ['a', 'b'].map((k) => batcher!.enqueue(write(k), '2026-01-01T00:00:00Z')),
    );
    for (const o of outcomes) {
      expect(o.status).toBe('rejected');
      expect((o as PromiseRejectedResult).reason).not.toBeInstanceOf(PermanentCrmError);
    }
  });

  it('sends two writes for one key one after the other, in acceptance order', async () => {
    const { client, requests } = scriptedClient(() => undefined);
    let release!: () => void;
    const gate = new Promise<void>((r) => (release = r));
    batcher = createUpsertBatcher({
      client,
      limiter: { ...freeLimiter(), acquire: () => gate },
      lockoutMs: 1_000,
      logger,
    });
    const later = batcher.enqueue({ ...write('same'), fields: { Key: 'same', n: 2 } }, '2026-01-01T00:00:02Z');
    const earlier = batcher.enqueue({ ...write('same'), fields: { Key: 'same', n: 1 } }, '2026-01-01T00:00:01Z');
    const other = batcher.enqueue(write('other'), '2026-01-01T00:00:03Z');
    release();
    await Promise.all([later, earlier, other]);
    expect(requests).toEqual([['same', 'other'], ['same']]);
  });
});
