import type { Logger } from 'pino';
import { PermanentCrmError } from '../crm.ts';
import {
  AirtableApiError,
  type AirtableClient,
  classifyAirtableFailure,
  mayStillLand,
  type UpsertResult,
} from './airtable-client.ts';
import type { AirtableWrite } from './airtable-mapping.ts';
import type { BaseFaultWatch } from './base-fault.ts';
import type { BaseRateLimiter } from './base-rate-limiter.ts';
import type { ClaimAnswer, GuardedWrite, MergeKeyGuard } from './merge-key-guard.ts';
import type { Batch, PendingWrite } from './pick-batch.ts';

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

/** One record of a request: its pending job, and the fields it sends (a newer write's fields left out). */
export type Outgoing = { pending: PendingWrite; fields: Record<string, unknown> };

/** What sending needs of the batcher that schedules: where records go back, and how a job's write ends. */
export type BatchLine = {
  /** Sends these batches again as they are, before anything new (a 429, a base fault, a split's halves). */
  resendFirst(...batches: Batch[]): void;
  /** Back in line, not before `ms` from now. */
  defer(pending: PendingWrite, ms: number): void;
  /** Ends a write: its merge key is free again, and its job gets `outcome`. */
  settle(pending: PendingWrite, outcome: () => void): void;
};

export type BatchSender = {
  /** Takes the batch's records in Redis: what may go now, with the fields to send; defers or skips the rest. */
  claim(batch: Batch, token: string): Promise<Outgoing[]>;
  /** Gives the records' leases back, after a request that will not be sent. */
  release(token: string, outgoing: Outgoing[]): Promise<void>;
  /** Sends one request and ends each of its jobs by Airtable's answer. */
  send(batch: Batch, outgoing: Outgoing[], token: string): Promise<void>;
};

/**
 * The sending half of the batcher: one request's claim in Redis, the request, and what its answer means
 * for each job. A 429 puts the same batch back at the front and pauses the base (no job spends an
 * attempt), and so does a 401, 403 or 404 (for `faultProbeMs`, then the batch probes again); a 422 splits
 * the batch until the bad record stands alone and fails permanently with Airtable's message; a 5xx,
 * timeout or network error fails the batch's jobs with a retryable error, for BullMQ's backoff.
 *
 * With a `guard` (always, outside unit tests), each request first claims its records in Redis: a record
 * leased by a request elsewhere waits (its write is deferred), and a write for a record several
 * submissions share (a contact) leaves out the fields a newer write already set, or is skipped when
 * nothing is left. See `createMergeKeyGuard`.
 */
export function createBatchSender({
  client,
  limiter,
  lockoutMs,
  faultProbeMs,
  baseFault,
  guard,
  logger,
  stats,
  line,
}: {
  client: AirtableClient;
  limiter: BaseRateLimiter;
  lockoutMs: number;
  faultProbeMs: number;
  baseFault: BaseFaultWatch | undefined;
  guard: MergeKeyGuard | undefined;
  logger: Logger;
  stats: BatcherStats;
  line: BatchLine;
}): BatchSender {
  /** Per table, the optional fields the base answered it lacks: left out of every write to it from then on. */
  const lacking = new Map<string, Set<string>>();

  /** Leaves out the optional fields the base lacks (the write is the batcher's own object). */
  function withoutLacking(batch: Batch): Batch {
    const fields = lacking.get(batch.table);
    if (fields) for (const pending of batch.writes) for (const name of fields) delete pending.write.fields[name];
    return batch;
  }

  async function claim(batch: Batch, guard: MergeKeyGuard, token: string): Promise<Outgoing[]> {
    let answers: ClaimAnswer[];
    try {
      answers = await guard.claim(
        token,
        batch.writes.map((p) => guarded(p.write)),
      );
    } catch (err) {
      logger.error({ err: (err as Error).message }, 'airtable: could not claim records in Redis; retrying in 1 s');
      for (const pending of batch.writes) line.defer(pending, 1_000);
      return [];
    }
    const outgoing: Outgoing[] = [];
    const skipped: PendingWrite[] = [];
    for (const [i, pending] of batch.writes.entries()) {
      const answer = answers[i]!;
      if (answer.busy) {
        // Looked at again soon, not at the lease's end: a lease usually ends early, released by the
        // answer. Each look may cost a send slot, so not too soon.
        line.defer(pending, Math.min(answer.retryInMs, DEFER_POLL_MS));
        continue;
      }
      const fields = withoutCovered(pending.write, answer.covered);
      const crmRecordId = answer.crmRecordId;
      if (fields === undefined && crmRecordId) {
        skipped.push(pending);
        line.settle(pending, () => pending.resolve({ crmRecordId }));
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
        for (const pending of batch.writes) line.settle(pending, () => pending.reject(retry));
        return;
      }
    }
    batch.writes.forEach((pending, i) => {
      const id = ids[i];
      if (id) line.settle(pending, () => pending.resolve({ crmRecordId: id }));
      // The merge field's name only: its value is an email for contacts.
      else
        line.settle(pending, () =>
          pending.reject(new Error(`Airtable's answer has no record for this ${batch.mergeOn}`)),
        );
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
      line.resendFirst(batch);
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
      line.resendFirst(batch);
      return;
    }
    const missing = lackingOptionalField(batch, err);
    if (missing) {
      // A base set up before the field existed: deliver without it rather than fail every record.
      const fields = lacking.get(batch.table) ?? new Set<string>();
      lacking.set(batch.table, fields.add(missing));
      logger.warn(
        { table: batch.table, field: missing },
        'airtable: the base has no such field; delivering without it (create it, then restart the workers, to fill it)',
      );
      line.resendFirst(batch);
      return;
    }
    if (action === 'split' && batch.writes.length > 1) {
      stats.splits++;
      const half = Math.ceil(batch.writes.length / 2);
      logger.info(
        { table: batch.table, records: batch.writes.length, err: err.message },
        'airtable refused a batch; splitting it',
      );
      line.resendFirst(
        { ...batch, writes: batch.writes.slice(0, half) },
        { ...batch, writes: batch.writes.slice(half) },
      );
      return;
    }
    const failure = action === 'retryable' ? err : new PermanentCrmError(err.message);
    for (const pending of batch.writes) line.settle(pending, () => pending.reject(failure));
  }

  return {
    claim: (batch, token) =>
      guard
        ? claim(withoutLacking(batch), guard, token)
        : Promise.resolve(withoutLacking(batch).writes.map((pending) => ({ pending, fields: pending.write.fields }))),
    async release(token, outgoing) {
      await guard
        ?.release(
          token,
          outgoing.map((o) => guarded(o.pending.write)),
        )
        .catch(() => {}); // else the leases run out
    },
    send,
  };
}

/** The optional field (`AirtableWrite.optionalFields`) a 422 UNKNOWN_FIELD_NAME names, if it names one. */
function lackingOptionalField(batch: Batch, err: Error): string | undefined {
  if (!(err instanceof AirtableApiError) || err.status !== 422 || err.type !== 'UNKNOWN_FIELD_NAME') return undefined;
  const name = /Unknown field name: "(.+)"/.exec(err.message)?.[1];
  return name && batch.writes.some((p) => p.write.optionalFields?.includes(name)) ? name : undefined;
}

/** The longest a write waits for a record leased elsewhere before it looks again. */
const DEFER_POLL_MS = 100;

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
