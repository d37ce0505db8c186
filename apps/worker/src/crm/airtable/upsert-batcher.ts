import type { Logger } from 'pino';
import { PermanentCrmError, type DeliveryResult } from '../crm.ts';
import { AIRTABLE_MAX_RECORDS_PER_REQUEST, classifyAirtableFailure, type AirtableApiError, type AirtableClient, type UpsertResult } from './airtable-client.ts';
import type { AirtableWrite } from './airtable-mapping.ts';
import type { BaseRateLimiter } from './base-rate-limiter.ts';
import { hasReadyWrite, mergeKey, pickBatch, type Batch, type PendingWrite } from './pick-batch.ts';

export type BatcherStats = {
  /** Requests sent, whatever their answer. */
  requests: number;
  /** Records Airtable confirmed. */
  records: number;
  /** 429 answers (each paused the base). */
  rateLimited: number;
  /** Requests refused for their content and split in two. */
  splits: number;
};

export type UpsertBatcher = {
  /** Resolves with Airtable's record id once a request carrying `write` succeeded. */
  enqueue(write: AirtableWrite, acceptedAt: string): Promise<DeliveryResult>;
  stats(): BatcherStats;
  /** Stops sending; writes still waiting are rejected (their jobs run again elsewhere), in-flight ones finish. */
  close(): Promise<void>;
};

/**
 * Coalesces the `deliver` calls of concurrently running jobs into performUpsert requests of up to ten
 * records. One loop per process takes a slot from the base's shared rate limit, then fills the request
 * with whatever has queued meanwhile, so under load requests leave full and when idle a lone record leaves
 * at once: waiting for the slot is the only linger.
 *
 * Each job keeps its own outcome: a 429 puts the same batch back at the front and pauses the base (no job
 * spends an attempt); a 422 splits the batch until the bad record stands alone and fails permanently with
 * Airtable's message; a 5xx, timeout or network error fails the batch's jobs with a retryable error, for
 * BullMQ's backoff.
 */
export function createUpsertBatcher({
  client,
  limiter,
  lockoutMs,
  logger,
  maxRecords = AIRTABLE_MAX_RECORDS_PER_REQUEST,
  maxWaitMs = 1_000,
}: {
  client: AirtableClient;
  limiter: BaseRateLimiter;
  /** How long a 429 pauses the base when the answer has no Retry-After. */
  lockoutMs: number;
  logger: Logger;
  maxRecords?: number;
  maxWaitMs?: number;
}): UpsertBatcher {
  const queues = new Map<string, PendingWrite[]>();
  /** Batches to send again as they are, before anything new: after a 429, and the halves of a split. */
  const resend: Batch[] = [];
  /** Merge keys in a request now or in `resend`: no other write for them may leave meanwhile. */
  const busy = new Set<string>();
  const inFlight = new Set<Promise<void>>();
  const stats: BatcherStats = { requests: 0, records: 0, rateLimited: 0, splits: 0 };
  const stopping = new AbortController();
  let wake: (() => void) | undefined;
  const notify = () => {
    const w = wake;
    wake = undefined;
    w?.();
  };

  async function loop() {
    while (!stopping.signal.aborted) {
      if (resend.length === 0 && !hasReadyWrite(queues, busy)) {
        await new Promise<void>((resolve) => (wake = resolve));
        continue;
      }
      try {
        await limiter.acquire(stopping.signal);
      } catch (err) {
        if (stopping.signal.aborted) break;
        logger.error({ err }, 'airtable rate limiter failed; retrying in 1 s');
        await new Promise((r) => setTimeout(r, 1_000));
        continue;
      }
      const batch = resend.shift() ?? pickBatch(queues, busy, { now: Date.now(), maxRecords, maxWaitMs });
      if (!batch) continue;
      for (const w of batch.writes) busy.add(mergeKey(w.write));
      const request = send(batch).finally(() => {
        inFlight.delete(request);
        notify();
      });
      inFlight.add(request);
    }
  }

  async function send(batch: Batch) {
    stats.requests++;
    let result: UpsertResult;
    try {
      result = await client.upsert(batch.table, batch.writes.map((w) => w.write.fields), [batch.mergeOn]);
    } catch (err) {
      return failed(batch, err as Error);
    }
    stats.records += batch.writes.length;
    batch.writes.forEach((pending, i) => {
      const id = recordIdFor(result, batch, i);
      if (id) settle(pending, () => pending.resolve({ crmRecordId: id }));
      else settle(pending, () => pending.reject(new Error(`Airtable's answer has no record for ${batch.mergeOn}=${pending.write.mergeValue}`)));
    });
  }

  async function failed(batch: Batch, err: Error) {
    const action = classifyAirtableFailure(err);
    if (action === 'rate-limited') {
      stats.rateLimited++;
      const pauseMs = (err as AirtableApiError).retryAfterMs ?? lockoutMs;
      logger.warn({ table: batch.table, records: batch.writes.length, pauseMs }, 'airtable 429: pausing the base');
      try {
        await limiter.pause(pauseMs);
      } catch (pauseErr) {
        logger.error({ err: pauseErr }, 'airtable: could not record the pause in Redis');
      }
      // Back in line only once the pause is in Redis, so the loop cannot resend it into the lock-out.
      resend.unshift(batch);
      return;
    }
    if (action === 'split' && batch.writes.length > 1) {
      stats.splits++;
      const half = Math.ceil(batch.writes.length / 2);
      logger.info({ table: batch.table, records: batch.writes.length, err: err.message }, 'airtable refused a batch; splitting it');
      resend.unshift({ ...batch, writes: batch.writes.slice(0, half) }, { ...batch, writes: batch.writes.slice(half) });
      return;
    }
    const failure = action === 'retryable' ? err : new PermanentCrmError(err.message);
    for (const pending of batch.writes) settle(pending, () => pending.reject(failure));
  }

  function settle(pending: PendingWrite, outcome: () => void) {
    busy.delete(mergeKey(pending.write));
    outcome();
  }

  const running = loop();

  return {
    enqueue(write, acceptedAt) {
      if (stopping.signal.aborted) return Promise.reject(new Error('the Airtable driver is closed'));
      return new Promise<DeliveryResult>((resolve, reject) => {
        const queue = queues.get(write.table) ?? [];
        queue.push({ write, acceptedAt: Date.parse(acceptedAt) || 0, queuedAt: Date.now(), resolve, reject });
        queues.set(write.table, queue);
        notify();
      });
    },
    stats: () => ({ ...stats }),
    async close() {
      stopping.abort();
      notify();
      await running;
      await Promise.allSettled([...inFlight]);
      const closed = new Error('the Airtable driver closed before this record was sent');
      for (const batch of resend.splice(0)) for (const pending of batch.writes) settle(pending, () => pending.reject(closed));
      for (const queue of queues.values()) for (const pending of queue) pending.reject(closed);
      queues.clear();
    },
  };
}

/** Airtable answers records in request order; the merge value confirms it, and finds a record if not. */
function recordIdFor(result: UpsertResult, batch: Batch, i: number): string | undefined {
  const want = batch.writes[i]!.write.mergeValue;
  const same = (r: UpsertResult['records'][number] | undefined) => r !== undefined && String(r.fields?.[batch.mergeOn] ?? '') === want;
  const atIndex = result.records?.[i];
  if (same(atIndex)) return atIndex!.id;
  return result.records?.find(same)?.id ?? (result.records?.length === batch.writes.length ? atIndex?.id : undefined);
}
