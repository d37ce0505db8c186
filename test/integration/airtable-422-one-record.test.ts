import type { Queue } from 'bullmq';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { type FakeAirtable, startFakeAirtable } from '../support/airtable-server.ts';
import { enqueueSubmissions, mixedSubmissions, waitForDrain } from '../support/airtable-submissions.ts';
import { type AirtableWorker, startAirtableWorker } from '../support/airtable-worker.ts';

// Airtable refuses a whole request for one bad value (422). The bad record must fail at once, with
// Airtable's reason on the job, and the good records batched with it must still land.
const BASE = `app422${Date.now().toString(36)}`;
const KEY = 'pat422Test';
let server: FakeAirtable;
let worker: AirtableWorker;
let queue: Queue;

beforeAll(async () => {
  server = await startFakeAirtable({ apiKey: KEY, rateLimit: { requests: 50, windowMs: 1_000, lockoutMs: 2_000 } });
  worker = await startAirtableWorker(server, { apiKey: KEY, baseId: BASE, env: { AIRTABLE_RATE_LIMIT: '50' } });
  queue = worker.queue;
});

afterAll(async () => {
  await worker?.stop();
  await server?.close();
});

it('a 422 on one record fails that one only, at once, with Airtable’s error kept on the job', async () => {
  const submissions = mixedSubmissions(110); // ten of each kind
  const bad = submissions.find((s) => s.kind === 'creator-signup')!;
  (bad.data as { instagram?: string }).instagram = 'not-a-handle';
  server.faults.rejectRecord = (_table, fields) =>
    fields.Instagram === 'not-a-handle'
      ? { type: 'INVALID_VALUE_FOR_COLUMN', message: 'Field "Instagram" cannot accept the provided value' }
      : undefined;

  await enqueueSubmissions(queue, submissions);
  expect(await waitForDrain(queue, submissions.length, 20_000)).toEqual({ completed: 109, failed: 1 });

  const [failed] = await queue.getJobs(['failed']);
  expect(failed!.id).toBe(bad.submissionId);
  expect(failed!.failedReason).toContain('INVALID_VALUE_FOR_COLUMN');
  expect(failed!.failedReason).toContain('Field "Instagram" cannot accept the provided value');
  expect(failed!.attemptsMade).toBe(1); // permanent: no retry
  const creators = server.records(BASE, 'Creators');
  expect(creators).toHaveLength(9);
  expect(creators.some((r) => r.fields['Submission ID'] === bad.submissionId)).toBe(false);
  expect(server.stats.byStatus[422]).toBeGreaterThanOrEqual(1);
});
