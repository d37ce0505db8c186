import type { Queue } from 'bullmq';
import type { FakeAirtable } from './airtable-server.ts';
import type { AppProcess } from './spawn-app.ts';
import { eventually } from './wait.ts';

/**
 * Room for a loaded machine: a wait derived from what a test drives (a rate, an outage, a lock) is that
 * time, times this. The slowest seen: worker-sigkill-twice-airtable-drain took 40.8 s in a fresh machine's
 * CI run, the cluster tier beside it, where alone it takes 15.8 to 17.0 s (2.5 times); three times leaves
 * room above that, and a wait past it is a failure worth reading (docs/testing.md#under-load).
 */
export const LOADED_MACHINE_ROOM = 3;

/** Records a second into the local Airtable: airtableWorkerEnv's 4 requests a second, 10 records each. */
export const AIRTABLE_RECORDS_PER_SECOND = 4 * 10;

/**
 * Waits until `queue` has completed at least `count` jobs, for as long as `count` takes at `perSecond`
 * (the pace the test drives: the CRM's limit, the worker's concurrency) plus `plusMs` (what else the test
 * made: an outage, a lock running out, a process starting), with LOADED_MACHINE_ROOM. A timeout says what
 * it expected and what it saw: the queue's counts, and `explain` (the CRM's counters, the processes' logs).
 */
export async function untilCompleted(
  queue: Queue,
  count: number,
  { perSecond, plusMs = 0, explain }: { perSecond: number; plusMs?: number; explain?: () => string },
): Promise<void> {
  const timeoutMs = Math.round(((count / perSecond) * 1000 + plusMs) * LOADED_MACHINE_ROOM);
  let counts: Record<string, number> = {};
  await eventually(
    async () => {
      counts = await queue.getJobCounts('completed', 'active', 'waiting', 'delayed', 'prioritized', 'failed');
      return (counts.completed ?? 0) >= count;
    },
    {
      timeoutMs,
      everyMs: Math.max(20, Math.min(250, timeoutMs / 200)),
      explain: () =>
        [
          `expected ${count} completed at ${perSecond}/s + ${plusMs} ms, ×${LOADED_MACHINE_ROOM} for a loaded machine; the queue: ${JSON.stringify(counts)}`,
          ...(explain ? [explain()] : []),
        ].join('\n'),
    },
  );
}

/** What a drain into the local Airtable looked like, for a failure's message: its counters, the first arrivals, each process's last lines. */
export function airtableSeen(server: FakeAirtable, processes: AppProcess[] = []): string {
  const { log, batchSizes: _, ...counters } = server.stats;
  const tails = processes.map((p, i) => `process ${i}:\n${p.output().split('\n').slice(-30).join('\n')}`);
  const first = [...log].sort((a, b) => a.at - b.at).slice(0, 12);
  const arrivals = `first requests (arrival ms, status) ${JSON.stringify(first.map((r) => [r.at, r.status]))}`;
  const rateLimited = log.filter((r) => r.status === 429).map((r) => r.at);
  const at429 = rateLimited.length ? `, 429s at ${JSON.stringify(rateLimited.slice(0, 5))}` : '';
  return [`airtable: ${JSON.stringify(counters)}, ${arrivals}${at429}`, ...tails].join('\n');
}
