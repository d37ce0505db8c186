import { JOB_OPTIONS, type JobPayload, jobNameFor } from '@forms/schemas';
import type { Queue } from 'bullmq';
import { afterEach, expect, it } from 'vitest';
import { type FakeAirtable, startFakeAirtable } from '../support/airtable-server.ts';
import { waitForDrain } from '../support/airtable-submissions.ts';
import { startAirtableWorker } from '../support/airtable-worker.ts';
import { sleep } from '../support/wait.ts';

// Seen: a contact, then a contact-update for the same email, the first request answered 503: requests
// [503, 200, 200], and the final record had the older name. The batcher freed the merge key on the failure,
// the newer write went first, and the older one's retry overwrote it. Newer must win whatever fails.
const KEY = 'patOlderWrite';
const TIMEOUT_MS = 400;
const cleanup: (() => Promise<unknown>)[] = [];
afterEach(async () => {
  for (const close of cleanup.splice(0).reverse()) await close();
});

async function setUp(name: string) {
  const server = await startFakeAirtable({ apiKey: KEY });
  cleanup.push(() => server.close());
  const baseId = `app${name}${Date.now().toString(36)}`;
  const { queue, stop } = await startAirtableWorker(server, {
    apiKey: KEY,
    baseId,
    env: {
      AIRTABLE_RATE_LIMIT: '50',
      AIRTABLE_REQUEST_TIMEOUT_MS: String(TIMEOUT_MS),
      RETRY_MAX_DELAY_MS: '40',
    },
  });
  cleanup.push(stop);
  return { server, baseId, queue };
}

/** A contact (older) and a contact-update (newer, one second later) for one email. */
function olderThenNewer(runId: string): JobPayload[] {
  const email = `ada.${runId}@acme.example`;
  return [
    {
      v: 1,
      submissionId: `sub_${runId}_1`,
      recordId: `con_${runId}`,
      kind: 'contact',
      acceptedAt: '2026-01-01T00:00:00.000Z',
      data: { email, name: 'Older Name', message: 'only the older write has a message' },
    },
    {
      v: 1,
      submissionId: `sub_${runId}_2`,
      recordId: `con_${runId}`,
      kind: 'contact-update',
      acceptedAt: '2026-01-01T00:00:01.000Z',
      data: { email, name: 'Newer Name', monthlyBudget: '5k' },
    },
  ] as JobPayload[];
}

async function deliver(queue: Queue, submissions: JobPayload[]) {
  await queue.addBulk(
    submissions.map((s) => ({ name: jobNameFor(s.kind), data: s, opts: { ...JOB_OPTIONS, jobId: s.submissionId } })),
  );
  expect(await waitForDrain(queue, submissions.length, 15_000)).toEqual({ completed: 2, failed: 0 });
}

function contactRecord(server: FakeAirtable, baseId: string) {
  const rows = server.records(baseId, 'Contacts');
  expect(rows).toHaveLength(1);
  return rows[0]!.fields;
}

it('a 503 on the older write: the newer name stands, and the older write still adds what only it had', async () => {
  const { server, baseId, queue } = await setUp('503');
  server.faults.script.push({ status: 503, type: 'SERVICE_UNAVAILABLE' });
  await deliver(queue, olderThenNewer('a503'));
  expect(server.stats.byStatus[503]).toBe(1);
  expect(contactRecord(server, baseId)).toMatchObject({
    Name: 'Newer Name',
    'Monthly Budget': '5k',
    Message: 'only the older write has a message',
    'Submission ID': 'sub_a503_2', // meta fields describe the latest submission
    Form: 'contact-update',
  });
});

it('a timed-out older write that Airtable applies late does not land over the newer one', async () => {
  const { server, baseId, queue } = await setUp('hang');
  // Past the client's timeout, then applied (against the rows as they are by then).
  server.faults.hangMs = TIMEOUT_MS * 1.5;
  server.faults.script.push('hang');
  await deliver(queue, olderThenNewer('ahang'));
  await sleep(TIMEOUT_MS * 1.5); // any late application has happened by now
  expect(contactRecord(server, baseId)).toMatchObject({
    Name: 'Newer Name',
    'Monthly Budget': '5k',
    Message: 'only the older write has a message',
    'Submission ID': 'sub_ahang_2',
  });
});

it('a replay of the older submission, long after the newer one landed, changes no newer field', async () => {
  const { server, baseId, queue } = await setUp('replay');
  const [older, newer] = olderThenNewer('areplay');
  await deliver(queue, [older!, newer!]);
  const before = server.stats.requests;
  // Ops replays the older job (as from the failed set): same submission id, re-added under a new job id.
  await queue.add(jobNameFor(older!.kind), older!, { ...JOB_OPTIONS, jobId: `${older!.submissionId}-replay` });
  expect(await waitForDrain(queue, 3, 10_000)).toEqual({ completed: 3, failed: 0 });
  expect(contactRecord(server, baseId)).toMatchObject({ Name: 'Newer Name', 'Submission ID': 'sub_areplay_2' });
  expect(server.stats.requests - before).toBeLessThanOrEqual(1);
});
