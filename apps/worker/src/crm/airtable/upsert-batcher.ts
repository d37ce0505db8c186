import { setTimeout as sleep } from 'node:timers/promises';
import type { Logger } from 'pino';
import type { DeliveryResult } from '../crm.ts';
import { AIRTABLE_MAX_RECORDS_PER_REQUEST, type AirtableClient } from './airtable-client.ts';
import type { AirtableWrite } from './airtable-mapping.ts';
import type { BaseFaultWatch } from './base-fault.ts';
import type { BaseRateLimiter, Grant } from './base-rate-limiter.ts';
import type { MergeKeyGuard } from './merge-key-guard.ts';
import { type Batch, hasReadyWrite, mergeKey, nextDeferredAt, type PendingWrite, pickBatch } from './pick-batch.ts';
import { type BatcherStats, createBatchSender, type Outgoing } from './send-batch.ts';

export type UpsertBatcher = {
  /** Resolves with Airtable's record id once a request carrying `write` succeeded. */
  enqueue(write: AirtableWrite, acceptedAt: string): Promise<DeliveryResult>;
  stats(): BatcherStats;
  /** Stops sending; writes still waiting are rejected (their jobs run again elsewhere), in-flight ones finish. */
  close(): Promise<void>;
};

/**
 * Coalesces the `deliver` calls of concurrently running jobs into performUpsert requests of up to ten
 * records: the scheduling half. One loop per process waits until the base's shared rate limit is free,
 * fills a request with whatever has queued meanwhile, claims its records, and only then takes the send
 * slot, sending at once: under load requests leave full, when idle a lone record leaves at once, and a
 * slot is never spent on records that could not go (see `dispatch`). Each job keeps its own outcome; what
 * an answer means for it is the sending half's (`createBatchSender`).
 */
export function createUpsertBatcher({
  client,
  limiter,
  lockoutMs,
  faultProbeMs = 30_000,
  baseFault,
  guard,
  logger,
  maxRecords = AIRTABLE_MAX_RECORDS_PER_REQUEST,
  maxWaitMs = 1_000,
  maxClaimHoldMs = 5_000,
}: {
  client: AirtableClient;
  limiter: BaseRateLimiter;
  /** How long a 429 pauses the base when the answer has no Retry-After. */
  lockoutMs: number;
  /** After a 401, 403 or 404: how long the base pauses before the same request is sent again, as a probe. */
  faultProbeMs?: number;
  /** Records and clears the base's shared fault state; none in unit tests. */
  baseFault?: BaseFaultWatch;
  /** Per-record leases and newer-wins stamps in Redis, shared by every process; none in unit tests. */
  guard?: MergeKeyGuard;
  logger: Logger;
  maxRecords?: number;
  maxWaitMs?: number;
  /** The longest a request holds its records' leases waiting for a send slot (well inside a lease's life). */
  maxClaimHoldMs?: number;
}): UpsertBatcher {
  const queues = new Map<string, PendingWrite[]>();
  /** Batches to send again as they are, before anything new: after a 429, and the halves of a split. */
  const resend: Batch[] = [];
  /** Merge keys in a request now or in `resend`: no other write for them may leave meanwhile. */
  const busy = new Set<string>();
  const inFlight = new Set<Promise<void>>();
  const stats: BatcherStats = { requests: 0, records: 0, rateLimited: 0, splits: 0, baseFaults: 0, olderSkipped: 0 };
  const stopping = new AbortController();
  const sender = createBatchSender({
    client,
    limiter,
    lockoutMs,
    faultProbeMs,
    baseFault,
    guard,
    logger,
    stats,
    line: { resendFirst: (...batches) => resend.unshift(...batches), defer, settle },
  });
  let wake: (() => void) | undefined;
  const notify = () => {
    const w = wake;
    wake = undefined;
    w?.();
  };

  /** Waits for new work, or for the first deferred write to come due. */
  function idle() {
    const due = nextDeferredAt(queues);
    return new Promise<void>((resolve) => {
      const timer = due === undefined ? undefined : setTimeout(notify, Math.max(1, due - Date.now()));
      wake = () => {
        clearTimeout(timer);
        resolve();
      };
    });
  }

  async function loop() {
    while (!stopping.signal.aborted) {
      if (resend.length === 0 && !hasReadyWrite(queues, busy, Date.now())) {
        await idle();
        continue;
      }
      try {
        // Choose the records only when the base is free: the request carries whatever queued meanwhile.
        const freeInMs = await limiter.freeInMs();
        if (freeInMs > 0) {
          await sleep(freeInMs, undefined, { signal: stopping.signal });
          continue;
        }
      } catch (err) {
        if (stopping.signal.aborted) break;
        logger.error({ err: (err as Error).message }, 'airtable rate limiter failed; retrying in 1 s');
        await sleep(1_000, undefined, { signal: stopping.signal }).catch(() => {});
        continue;
      }
      const batch = resend.shift() ?? pickBatch(queues, busy, { now: Date.now(), maxRecords, maxWaitMs });
      if (!batch) continue;
      for (const w of batch.writes) busy.add(mergeKey(w.write));
      await dispatch(batch);
    }
  }

  /**
   * Claims the batch's records, takes a send slot for those it may send, and sends them: resolves once
   * the request has left (its answer is handled in the background) or its records are back in line.
   * Records leased by a request elsewhere are put back before any slot is taken, so they never spend one.
   */
  async function dispatch(batch: Batch) {
    const token = guard?.token() ?? '';
    const outgoing = await sender.claim(batch, token);
    if (outgoing.length === 0) return;
    if (!(await granted(outgoing, token))) return;
    // Nothing is awaited between the grant and the request leaving: the grant is the send.
    const request = sender.send({ ...batch, writes: outgoing.map((o) => o.pending) }, outgoing, token).finally(() => {
      inFlight.delete(request);
      notify();
    });
    inFlight.add(request);
  }

  /**
   * Waits for a send slot while holding the records' leases, for at most `maxClaimHoldMs`: a longer wait
   * (a 429 met elsewhere paused the base) lets the leases go and puts the records back in line for when
   * the base is free, so a lease never runs out under a request still to leave.
   */
  async function granted(outgoing: Outgoing[], token: string): Promise<boolean> {
    const claimedAt = Date.now();
    const giveBack = async (waitMs: number) => {
      await sender.release(token, outgoing);
      for (const o of outgoing) defer(o.pending, waitMs);
    };
    // Bounded: each turn waits at least one answer from Redis, and the hold is bounded in time.
    for (let turn = 0; turn < 10_000; turn++) {
      let grant: Grant;
      try {
        grant = await limiter.take();
      } catch (err) {
        if (!stopping.signal.aborted)
          logger.error({ err: (err as Error).message }, 'airtable rate limiter failed; retrying in 1 s');
        await giveBack(1_000);
        return false;
      }
      if (grant.granted && !stopping.signal.aborted) return true;
      if (grant.granted || stopping.signal.aborted || Date.now() + grant.waitMs - claimedAt > maxClaimHoldMs) {
        await giveBack(grant.granted ? 0 : grant.waitMs);
        return false;
      }
      try {
        await sleep(grant.waitMs, undefined, { signal: stopping.signal });
      } catch {
        await giveBack(0);
        return false;
      }
    }
    await giveBack(0);
    return false;
  }

  /** Back in line, not before `ms` from now: its record is leased by a request elsewhere. */
  function defer(pending: PendingWrite, ms: number) {
    busy.delete(mergeKey(pending.write));
    pending.notBefore = Date.now() + Math.max(10, ms);
    const queue = queues.get(pending.write.table) ?? [];
    queue.push(pending);
    queues.set(pending.write.table, queue);
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
      for (const batch of resend.splice(0))
        for (const pending of batch.writes) settle(pending, () => pending.reject(closed));
      for (const queue of queues.values()) for (const pending of queue) pending.reject(closed);
      queues.clear();
    },
  };
}
