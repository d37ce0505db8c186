import type { SubmissionKind } from '@forms/schemas';
import type { Queue } from 'bullmq';
import { expect } from 'vitest';
import { sendJson } from './http.ts';
import { runOps } from './ops-cli.ts';
import { validBody } from './valid-bodies.ts';
import { eventually } from './wait.ts';

/** Kinds whose answer carries a recordId, so each acknowledged submission can be named by the test. */
const KINDS: SubmissionKind[] = ['contact', 'creator-signup', 'careers-apply', 'partner-webinar'];

/** Sends `count` submissions through the gateway, each with its own email; returns the recordIds answered. */
export async function sendSubmissions(gatewayUrl: string, count: number, tag: string): Promise<string[]> {
  const recordIds: string[] = [];
  for (let i = 0; i < count; i += 20) {
    const answers = await Promise.all(
      Array.from({ length: Math.min(20, count - i) }, (_, j) => {
        const kind = KINDS[(i + j) % KINDS.length]!;
        const path = kind === 'partner-webinar' ? '/api/partner-webinar' : `/api/${kind}`;
        return sendJson(`${gatewayUrl}${path}`, validBody(kind, `${tag}-${i + j}`));
      }),
    );
    for (const answer of answers) {
      expect(answer.status).toBe(200);
      recordIds.push(answer.body.recordId);
    }
  }
  return recordIds;
}

export async function waitForCounts(queue: Queue, want: { failed?: number; completed?: number }, timeoutMs = 45_000) {
  await eventually(
    async () => {
      const counts = await queue.getJobCounts('failed', 'completed', 'waiting', 'active', 'delayed');
      return (
        (want.failed === undefined || counts.failed === want.failed) &&
        (want.completed === undefined || counts.completed === want.completed) &&
        counts.waiting === 0 &&
        counts.active === 0 &&
        counts.delayed === 0
      );
    },
    { timeoutMs, everyMs: 100 },
  );
}

/**
 * The ops half of a launch-day outage, as the issue states it: the failed set holds exactly the
 * acknowledged submissions (by `ops failed --json`), `ops replay --since` re-queues all of them, the
 * store then holds each once (`countRecords` answers per recordId), and a second replay changes nothing.
 */
export async function failReplayAndCheck({
  env,
  queue,
  recordIds,
  since,
  expectCode,
  fix,
  records,
  completedBefore,
}: {
  env: Record<string, string>;
  queue: Queue;
  recordIds: string[];
  since: string;
  expectCode: { status?: number; code?: string } | undefined;
  fix: () => Promise<void> | void;
  /** recordId → how many records the CRM holds for it. */
  records: () => Promise<Map<string, number>>;
  completedBefore: number;
}) {
  await waitForCounts(queue, { failed: recordIds.length });
  const failed = await runOps(['failed', '--json', '--limit', '10000'], env);
  expect(failed.code, failed.stderr).toBe(0);
  expect(failed.json.count).toBe(recordIds.length);
  expect(new Set(failed.json.jobs.map((j: any) => j.recordId))).toEqual(new Set(recordIds));
  if (expectCode) {
    // Each with its last error, so a job that failed another way says how.
    for (const job of failed.json.jobs)
      expect({ status: job.status, code: job.code }, JSON.stringify(job)).toMatchObject(expectCode);
    const byCode = await runOps(['failed', '--json', '--code', String(expectCode.status)], env);
    expect(byCode.json.count).toBe(recordIds.length);
  }
  expect(failed.json.errors).toHaveLength(1);
  expect(failed.json.errors[0].count).toBe(recordIds.length);

  await fix();
  const replay = await runOps(['replay', '--since', since, '--json'], env);
  expect(replay.code, replay.stderr).toBe(0);
  expect({ replayed: replay.json.replayed, skipped: replay.json.skipped, missing: replay.json.missing }).toEqual({
    replayed: recordIds.length,
    skipped: 0,
    missing: 0,
  });
  await waitForCounts(queue, { failed: 0, completed: completedBefore + recordIds.length });
  const held = await records();
  for (const id of recordIds) expect(held.get(id), `records for ${id}`).toBe(1);

  const again = await runOps(['replay', '--since', since, '--json'], env);
  expect(again.code).toBe(0);
  expect(again.json.replayed).toBe(0);
  const counts = await queue.getJobCounts('failed', 'completed', 'waiting', 'delayed');
  expect(counts).toMatchObject({ failed: 0, completed: completedBefore + recordIds.length, waiting: 0, delayed: 0 });
  expect(await records()).toEqual(held);
}
