import { setTimeout as sleep } from 'node:timers/promises';
import { pino } from 'pino';
import { afterEach, describe, expect, it } from 'vitest';
import { PermanentCrmError } from '../crm.ts';
import { AirtableApiError, type AirtableClient } from './airtable-client.ts';
import type { BaseRateLimiter } from './base-rate-limiter.ts';
import type { MergeKeyGuard } from './merge-key-guard.ts';
import { createUpsertBatcher, type UpsertBatcher } from './upsert-batcher.ts';

const logger = pino({ level: 'silent' });
const write = (key: string) => ({ table: 'T', mergeOn: 'Key', mergeValue: key, fields: { Key: key } });

/** A limiter that grants at once and records pauses; the shared one is tested against Redis. */
function freeLimiter(pauses: number[] = []): BaseRateLimiter {
  return {
    freeInMs: async () => 0,
    take: async () => ({ granted: true }),
    acquire: async () => {},
    pause: async (ms) => void pauses.push(ms),
    rateLimitedCount: async () => pauses.length,
    staleGrants: () => 0,
  };
}

/** A client whose answer to each request is decided by `answer`; it records the keys of every request. */
function scriptedClient(answer: (keys: string[], call: number) => Error | undefined) {
  const requests: string[][] = [];
  const client: AirtableClient = {
    async upsert(_table, records) {
      const keys = records.map((r) => String(r.Key));
      requests.push(keys);
      await sleep(5);
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
      limiter: { ...freeLimiter(), freeInMs: () => gate.then(() => 0) },
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
      limiter: { ...freeLimiter(), freeInMs: () => gate.then(() => 0) },
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

/** A guard in memory: records in `held` are leased elsewhere; every release is recorded. */
function memoryGuard(held: Set<string>) {
  const released: string[][] = [];
  const guard: MergeKeyGuard = {
    token: () => 'token',
    claim: async (_token, writes) =>
      writes.map((w) =>
        held.has(w.mergeValue) ? { busy: true, retryInMs: 50 } : { busy: false, covered: [], crmRecordId: undefined },
      ),
    applied: async () => {},
    release: async (_token, writes) => void released.push(writes.map((w) => w.mergeValue)),
  };
  return { guard, released };
}

describe('the upsert batcher with leases', () => {
  // The stall after failed requests: records leased by a request elsewhere were claimed after the slot was
  // taken, so every slot went to records that could not go while fresh ones waited.
  it('leased-records-spend-send-slots: takes a slot only for records it could claim', async () => {
    const { client, requests } = scriptedClient(() => undefined);
    const held = new Set(['h1', 'h2', 'h3']);
    const { guard } = memoryGuard(held);
    let takes = 0;
    batcher = createUpsertBatcher({
      client,
      limiter: {
        ...freeLimiter(),
        take: async () => {
          takes++;
          return { granted: true };
        },
      },
      guard,
      lockoutMs: 1_000,
      logger,
      maxRecords: 3,
    });
    // The leased records are the oldest, so they are chosen first.
    const leased = ['h1', 'h2', 'h3'].map((k) => batcher!.enqueue(write(k), '2026-01-01T00:00:00Z'));
    const fresh = await Promise.all(
      ['a', 'b', 'c', 'd'].map((k) => batcher!.enqueue(write(k), '2026-01-01T00:00:05Z')),
    );
    expect(fresh).toHaveLength(4);
    expect(takes).toBe(requests.length);
    held.clear();
    await Promise.all(leased);
    expect(takes).toBe(requests.length);
    expect(requests.flat().sort()).toEqual(['a', 'b', 'c', 'd', 'h1', 'h2', 'h3']);
  });

  it('releases the records of a request Airtable answered with a 5xx, and keeps those of one left unanswered', async () => {
    let answer: Error = new AirtableApiError(503, 'SERVICE_UNAVAILABLE', 'down', undefined);
    const { client } = scriptedClient(() => answer);
    const { guard, released } = memoryGuard(new Set());
    batcher = createUpsertBatcher({ client, limiter: freeLimiter(), guard, lockoutMs: 1_000, logger });
    await expect(batcher.enqueue(write('a'), '2026-01-01T00:00:00Z')).rejects.toThrow('down');
    expect(released).toEqual([['a']]);
    answer = Object.assign(new TypeError('fetch failed'), { cause: { code: 'ECONNRESET' } });
    await expect(batcher.enqueue(write('b'), '2026-01-01T00:00:00Z')).rejects.toThrow('fetch failed');
    answer = new DOMException('The operation was aborted due to timeout', 'TimeoutError');
    await expect(batcher.enqueue(write('c'), '2026-01-01T00:00:00Z')).rejects.toThrow('timeout');
    expect(released).toEqual([['a']]); // b and c may still land: their leases run out
  });

  it('waits for the slot while holding the leases only so long, then lets them go', async () => {
    const { client, requests } = scriptedClient(() => undefined);
    const { guard, released } = memoryGuard(new Set());
    let turn = 0;
    batcher = createUpsertBatcher({
      client,
      // A 429 elsewhere paused the base just as this request claimed its records, for 300 ms.
      limiter: {
        ...freeLimiter(),
        take: async () => (turn++ === 0 ? { granted: false, waitMs: 300 } : { granted: true }),
      },
      guard,
      lockoutMs: 1_000,
      logger,
      maxClaimHoldMs: 100,
    });
    expect(await batcher.enqueue(write('a'), '2026-01-01T00:00:00Z')).toEqual({ crmRecordId: 'rec_a' });
    expect(released).toEqual([['a']]);
    expect(requests).toEqual([['a']]);
  });
});
