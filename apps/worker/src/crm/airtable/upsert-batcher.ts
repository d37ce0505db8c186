import { setTimeout as sleep } from 'node:timers/promises';
import type { Logger } from 'pino';
import { type DeliveryResult, PermanentCrmError } from '../crm.ts';
import {
  AIRTABLE_MAX_RECORDS_PER_REQUEST,
  type AirtableApiError,
  type AirtableClient,
  classifyAirtableFailure,
  mayStillLand,
  type UpsertResult,
} from './airtable-client.ts';
import type { AirtableWrite } from './airtable-mapping.ts';
import type { BaseFaultWatch } from './base-fault.ts';
import type { BaseRateLimiter, Grant } from './base-rate-limiter.ts';
import type { ClaimAnswer, GuardedWrite, MergeKeyGuard } from './merge-key-guard.ts';
import { type Batch, hasReadyWrite, mergeKey, nextDeferredAt, type PendingWrite, pickBatch } from './pick-batch.ts';

export type BatcherStats = {
  /** Requests sent, whatever their answer. */
  requests: number;
  /** Records Airtable confirmed. */
  records: number;
  /** 429 answers (each paused the base). */
  rateLimited: number;
  /** Requests refused for their content and split in two. */
  splits: number;
  /** 401, 403 and 404 answers (each paused the base until the next probe). */
  baseFaults: number;
  /** Writes not sent because newer writes had already set every field they carry (completed as no-ops). */
  olderSkipped: number;
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
 * records. One loop per process waits until the base's shared rate limit is free, fills a request with
 * whatever has queued meanwhile, claims its records, and only then takes the send slot, sending at once:
 * under load requests leave full, when idle a lone record leaves at once, and a slot is never spent on
 * records that could not go (see `dispatch`).
 *
 * Each job keeps its own outcome: a 429 puts the same batch back at the front and pauses the base (no job
 * spends an attempt), and so does a 401, 403 or 404 (for `faultProbeMs`, then the batch probes again); a 422 splits the batch until the bad record stands alone and fails permanently with
 * Airtable's message; a 5xx, timeout or network error fails the batch's jobs with a retryable error, for
 * BullMQ's backoff.
 *
 * With a `guard` (always, outside unit tests), each request first claims its records in Redis: a record
 * leased by a request elsewhere waits (its write is deferred), and a write for a record several
 * submissions share (a contact) leaves out the fields a newer write already set, or is skipped when
 * nothing is left. See `createMergeKeyGuard`.
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
    const outgoing = guard
      ? await claim(batch, guard, token)
      : batch.writes.map((pending) => ({ pending, fields: pending.write.fields }));
    if (outgoing.length === 0) return;
    if (!(await granted(outgoing, token))) return;
    // Nothing is awaited between the grant and the request leaving: the grant is the send.
    const request = send({ ...batch, writes: outgoing.map((o) => o.pending) }, outgoing, token).finally(() => {
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
      await guard
        ?.release(
          token,
          outgoing.map((o) => guarded(o.pending.write)),
        )
        .catch(() => {}); // else the leases run out
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

  /** Takes the batch's records in Redis: what may go now, with the fields to send; defers or skips the rest. */
  async function claim(batch: Batch, guard: MergeKeyGuard, token: string): Promise<Outgoing[]> {
    let answers: ClaimAnswer[];
    try {
      answers = await guard.claim(
        token,
        batch.writes.map((p) => guarded(p.write)),
      );
    } catch (err) {
      logger.error({ err: (err as Error).message }, 'airtable: could not claim records in Redis; retrying in 1 s');
      for (const pending of batch.writes) defer(pending, 1_000);
      return [];
    }
    const outgoing: Outgoing[] = [];
    const skipped: PendingWrite[] = [];
    for (const [i, pending] of batch.writes.entries()) {
      const answer = answers[i]!;
      if (answer.busy) {
        // Looked at again soon, not at the lease's end: a lease usually ends early, released by the
        // answer. Each look may cost a send slot, so not too soon.
        defer(pending, Math.min(answer.retryInMs, DEFER_POLL_MS));
        continue;
      }
      const fields = withoutCovered(pending.write, answer.covered);
      const crmRecordId = answer.crmRecordId;
      if (fields === undefined && crmRecordId) {
        skipped.push(pending);
        settle(pending, () => pending.resolve({ crmRecordId }));
        continue;
      }
      outgoing.push({ pending, fields: fields ?? pending.write.fields });
    }
    if (skipped.length > 0) {
      stats.olderSkipped += skipped.length;
      logger.info(
        { table: batch.table, writes: skipped.length },
        'airtable: older writes skipped, newer ones already set every field they carry',
      );
      await guard
        .release(
          token,
          skipped.map((p) => guarded(p.write)),
        )
        .catch(() => {}); // else the lease runs out
    }
    return outgoing;
  }

  /** Back in line, not before `ms` from now: its record is leased by a request elsewhere. */
  function defer(pending: PendingWrite, ms: number) {
    busy.delete(mergeKey(pending.write));
    pending.notBefore = Date.now() + Math.max(10, ms);
    const queue = queues.get(pending.write.table) ?? [];
    queue.push(pending);
    queues.set(pending.write.table, queue);
  }

  async function send(batch: Batch, outgoing: Outgoing[], token: string) {
    stats.requests++;
    let result: UpsertResult;
    try {
      result = await client.upsert(
        batch.table,
        outgoing.map((o) => o.fields),
        [batch.mergeOn],
        outgoing.map((o) => o.pending.write.trace),
      );
    } catch (err) {
      return failed(batch, outgoing, token, err as Error);
    }
    stats.records += batch.writes.length;
    await baseFault?.cleared(batch.table);
    const ids = batch.writes.map((_, i) => recordIdFor(result, batch, i));
    if (guard) {
      const confirmed = outgoing.flatMap((o, i) =>
        ids[i] ? [{ ...guarded(o.pending.write, o.fields), crmRecordId: ids[i] }] : [],
      );
      try {
        await guard.applied(token, confirmed);
      } catch (err) {
        // Unrecorded, a newer write's fields could later be overwritten by an older one: retry these jobs,
        // which writes the same values again and records them.
        logger.error({ err: (err as Error).message }, 'airtable: could not record applied writes in Redis');
        const retry = new Error('the write landed but its order could not be recorded in Redis; retrying');
        for (const pending of batch.writes) settle(pending, () => pending.reject(retry));
        return;
      }
    }
    batch.writes.forEach((pending, i) => {
      const id = ids[i];
      if (id) settle(pending, () => pending.resolve({ crmRecordId: id }));
      // The merge field's name only: its value is an email for contacts.
      else
        settle(pending, () => pending.reject(new Error(`Airtable's answer has no record for this ${batch.mergeOn}`)));
    });
  }

  async function failed(batch: Batch, outgoing: Outgoing[], token: string, err: Error) {
    const action = classifyAirtableFailure(err);
    // A request that was answered (even 5xx) or never reached Airtable is over: its records are free again
    // at once, so their retries, and other writes for them, need not wait. One that may still land (no
    // answer: a timeout, a dropped connection, a 504) keeps its leases until they run out.
    if (!mayStillLand(err))
      await guard
        ?.release(
          token,
          outgoing.map((o) => guarded(o.pending.write)),
        )
        .catch(() => {});
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
    if (action === 'base-fault') {
      // Every record would meet the same refusal: keep them all (no attempt spent) and probe with this batch.
      stats.baseFaults++;
      const { status, type, message } = err as AirtableApiError;
      // The state outlives a few missed probes only, so a fleet that stopped leaves no stale fault.
      await baseFault?.met(batch.table, { status, type, message }, 3 * faultProbeMs);
      try {
        await limiter.pause(faultProbeMs, 'base-fault');
      } catch (pauseErr) {
        logger.error({ err: pauseErr }, 'airtable: could not record the pause in Redis');
      }
      resend.unshift(batch);
      return;
    }
    if (action === 'split' && batch.writes.length > 1) {
      stats.splits++;
      const half = Math.ceil(batch.writes.length / 2);
      logger.info(
        { table: batch.table, records: batch.writes.length, err: err.message },
        'airtable refused a batch; splitting it',
      );
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
      for (const batch of resend.splice(0))
        for (const pending of batch.writes) settle(pending, () => pending.reject(closed));
      for (const queue of queues.values()) for (const pending of queue) pending.reject(closed);
      queues.clear();
    },
  };
}

/** The longest a write waits for a record leased elsewhere before it looks again. */
const DEFER_POLL_MS = 100;

/** One record of a request: its pending job, and the fields it sends (a newer write's fields left out). */
type Outgoing = { pending: PendingWrite; fields: Record<string, unknown> };

/** A write as the guard keys and orders it; `fields` defaults to all it carries. */
function guarded(write: AirtableWrite, fields: Record<string, unknown> = write.fields): GuardedWrite {
  return {
    table: write.table,
    mergeValue: write.mergeValue,
    stamp: write.newerWins?.stamp,
    fields: Object.keys(fields).filter((f) => f !== write.mergeOn),
  };
}

/**
 * The write's fields less those a newer write already set; undefined when none but the merge field is left.
 * This is the rule "newer wins per field, an older write only fills what no newer one set", as the
 * Postgres driver applies it: contact updates are partial, so an older write can still carry a field
 * (a message, say) that no newer one has.
 */
function withoutCovered(write: AirtableWrite, covered: string[]): Record<string, unknown> | undefined {
  if (covered.length === 0) return write.fields;
  const skip = new Set(covered);
  const fields = Object.fromEntries(Object.entries(write.fields).filter(([name]) => !skip.has(name)));
  return Object.keys(fields).some((name) => name !== write.mergeOn) ? fields : undefined;
}

/** Airtable answers records in request order; the merge value confirms it, and finds a record if not. */
function recordIdFor(result: UpsertResult, batch: Batch, i: number): string | undefined {
  const want = batch.writes[i]!.write.mergeValue;
  const same = (r: UpsertResult['records'][number] | undefined) =>
    r !== undefined && String(r.fields?.[batch.mergeOn] ?? '') === want;
  const atIndex = result.records?.[i];
  if (same(atIndex)) return atIndex!.id;
  return result.records?.find(same)?.id ?? (result.records?.length === batch.writes.length ? atIndex?.id : undefined);
}
