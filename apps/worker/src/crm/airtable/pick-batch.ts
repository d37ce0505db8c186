import type { DeliveryResult } from '../crm.ts';
import type { AirtableWrite } from './airtable-mapping.ts';

/** One job's record, waiting in memory for a request to carry it. */
export type PendingWrite = {
  write: AirtableWrite;
  /** When the gateway accepted the submission: writes for one merge key go out in this order. */
  acceptedAt: number;
  /** When it was handed to the batcher (this process's clock), to bound how long a small table waits. */
  queuedAt: number;
  /** Not sent before this time (this process's clock): its record was leased by a request elsewhere. */
  notBefore?: number;
  resolve(result: DeliveryResult): void;
  reject(err: Error): void;
};

/** Records for one table that travel in one performUpsert request. */
export type Batch = { table: string; mergeOn: string; writes: PendingWrite[] };

/** A record's identity in Airtable: table plus merge value. Two writes with one key never share a request. */
export function mergeKey(write: AirtableWrite): string {
  return `${write.table}\u0000${write.mergeValue}`;
}

/**
 * Chooses the next request and takes its records out of `queues` (one array per table, in arrival order).
 *
 * The table: the one with the most records ready (fuller requests are what turn 5 requests a second into
 * 50 records), unless some table's oldest record has waited `maxWaitMs`, then that table, so a rare kind
 * is never starved by a busy one. The records: oldest accepted first, at most `maxRecords`, never two
 * with one merge key, and none whose key is `busy` (in a request now, or waiting to be resent): Airtable
 * fails a request that matches one record twice, and sending them one after the other keeps their order.
 */
export function pickBatch(
  queues: Map<string, PendingWrite[]>,
  busy: ReadonlySet<string>,
  { now, maxRecords, maxWaitMs }: { now: number; maxRecords: number; maxWaitMs: number },
): Batch | undefined {
  let best: { table: string; ready: PendingWrite[]; oldest: number } | undefined;
  let overdue: typeof best;
  for (const [table, queue] of queues) {
    const ready = readyWrites(queue, busy, maxRecords, now);
    if (ready.length === 0) continue;
    const oldest = Math.min(...ready.map((w) => w.queuedAt));
    const candidate = { table, ready, oldest };
    if (now - oldest >= maxWaitMs && (!overdue || oldest < overdue.oldest)) overdue = candidate;
    if (!best || ready.length > best.ready.length || (ready.length === best.ready.length && oldest < best.oldest))
      best = candidate;
  }
  const chosen = overdue ?? best;
  if (!chosen) return undefined;
  const taken = new Set(chosen.ready);
  const queue = queues.get(chosen.table)!;
  const rest = queue.filter((w) => !taken.has(w));
  if (rest.length > 0) queues.set(chosen.table, rest);
  else queues.delete(chosen.table);
  return { table: chosen.table, mergeOn: chosen.ready[0]!.write.mergeOn, writes: chosen.ready };
}

/** True when `pickBatch` would find something to send. */
export function hasReadyWrite(queues: Map<string, PendingWrite[]>, busy: ReadonlySet<string>, now: number): boolean {
  for (const queue of queues.values()) if (readyWrites(queue, busy, 1, now).length > 0) return true;
  return false;
}

/** The earliest time a deferred write becomes ready, if any write is deferred. */
export function nextDeferredAt(queues: Map<string, PendingWrite[]>): number | undefined {
  let next: number | undefined;
  for (const queue of queues.values())
    for (const w of queue)
      if (w.notBefore !== undefined && (next === undefined || w.notBefore < next)) next = w.notBefore;
  return next;
}

function isReady(pending: PendingWrite, busy: ReadonlySet<string>, now: number): boolean {
  return !busy.has(mergeKey(pending.write)) && (pending.notBefore ?? 0) <= now;
}

function readyWrites(
  queue: PendingWrite[],
  busy: ReadonlySet<string>,
  maxRecords: number,
  now: number,
): PendingWrite[] {
  // Stable sort: equal acceptance times keep arrival order.
  const byAcceptance = [...queue].sort((a, b) => a.acceptedAt - b.acceptedAt);
  const keys = new Set<string>();
  const ready: PendingWrite[] = [];
  for (const pending of byAcceptance) {
    const key = mergeKey(pending.write);
    // A deferred write still holds its key's place: nothing newer for that key may overtake it here.
    if (keys.has(key)) continue;
    keys.add(key);
    if (!isReady(pending, busy, now)) continue;
    ready.push(pending);
    if (ready.length === maxRecords) break;
  }
  return ready;
}
