import { randomUUID } from 'node:crypto';
import { type Job, Queue } from 'bullmq';
import { expect } from 'vitest';
import type { FakeAirtable } from './airtable-server.ts';
import { acknowledgedIds, sendCreatorsUnderLoad } from './load.ts';
import { longestGap, mostInAnyWindow } from './request-timeline.ts';
import { startTestGateway } from './test-gateway.ts';
import { eventually } from './wait.ts';

/**
 * A backlog of `total` creator-signups acknowledged by a gateway on `redisUrl` (its queue is returned), for
 * a drain into the local Airtable server. The gateway is stopped once they are in: the faults that follow
 * are the worker's.
 */
export async function acknowledgedBacklog(redisUrl: string, total: number) {
  // All load comes from 127.0.0.1, one client: the per-client limit is for the open internet, not this test.
  const gateway = await startTestGateway(redisUrl, { RATE_LIMIT_REQUESTS: '0' }, { keepQueue: true });
  try {
    const sent = await sendCreatorsUnderLoad(() => gateway.url, {
      lanes: 20,
      max: total,
      until: () => false,
      tag: `drain-${randomUUID()}`,
    });
    const acknowledged = acknowledgedIds(sent);
    expect(acknowledged.size).toBe(total);
    return { acknowledged, queueName: gateway.queueName };
  } finally {
    await gateway.stop();
  }
}

/**
 * Waits until every acknowledged submission is a record of `baseId`'s Creators table and the queue holds
 * nothing left to do, then checks what the issue's harness checks: one record per submission, no 429,
 * never more than `limit` requests in any sliding second, and no gap over `maxGapMs` between two requests
 * while jobs waited, outside the `outages` (when nothing can be granted) and after the last job the stalled
 * check did not have to take back. Returns the figures for the log.
 */
export async function expectDrainedWithinTheLimit(
  server: FakeAirtable,
  {
    baseId,
    redisUrl,
    queueName,
    acknowledged,
    outages,
    limit = 5,
    maxGapMs = 3_000,
    timeoutMs = 90_000,
  }: {
    baseId: string;
    redisUrl: string;
    queueName: string;
    acknowledged: Set<string>;
    outages: { start: number; end: number }[];
    limit?: number;
    maxGapMs?: number;
    timeoutMs?: number;
  },
) {
  const queue = new Queue(queueName, { connection: { url: redisUrl } });
  let done: Job[] = [];
  try {
    await eventually(
      async () => {
        if (server.records(baseId, 'Creators').length < acknowledged.size) return false;
        const c = await queue.getJobCounts('waiting', 'active', 'delayed', 'prioritized');
        return Object.values(c).every((n) => n === 0);
      },
      { timeoutMs, everyMs: 250 },
    );
    expect(await queue.getFailedCount()).toBe(0);
    done = await queue.getJobs(['completed']);
  } finally {
    await queue.close();
  }
  const ids = server.records(baseId, 'Creators').map((r) => String(r.fields['Submission ID']));
  expect(ids.length).toBe(acknowledged.size); // no duplicates: one record per submission
  expect(new Set(ids)).toEqual(acknowledged);

  const times = server.stats.log.filter((r) => r.baseId === baseId).map((r) => r.at);
  // A job Redis moved to active just before it died (its answer lost, the worker asked again and got the
  // next job) waits under a lock nobody holds until BullMQ's stalled check takes it back, up to two lock
  // periods (30 s each by default; test: job-moved-to-active-as-the-connection-dropped). Its late request is
  // that path, not a stall of the limiter, so the gaps are measured up to the last job no stalled check took
  // back.
  const inTime = done.filter((job) => job.stalledCounter === 0).map((job) => job.finishedOn ?? 0);
  const lastInTime = inTime.length > 0 ? Math.max(...inTime) : Number.POSITIVE_INFINITY;
  const figures = {
    requests: times.length,
    rateLimited: server.stats.rateLimited,
    mostInOneSecond: mostInAnyWindow(times),
    recoveredByTheStalledCheck: done.length - inTime.length,
    longestGap: longestGap(times, { from: times[0]!, to: Math.min(times.at(-1)!, lastInTime), excluded: outages }),
  };
  expect(
    {
      rateLimited: figures.rateLimited,
      overLimit: figures.mostInOneSecond > limit,
      gapOverBound: figures.longestGap.ms >= maxGapMs,
    },
    JSON.stringify(figures),
  ).toEqual({ rateLimited: 0, overLimit: false, gapOverBound: false });
  return figures;
}
