import { type AirtableCrm, loadAirtableMapping } from '@forms/worker';
import type { Queue } from 'bullmq';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { type FakeAirtable, startFakeAirtable } from '../support/airtable-server.ts';
import { checkDelivery, enqueueSubmissions, mixedSubmissions, waitForDrain } from '../support/airtable-submissions.ts';
import { type AirtableWorker, startAirtableWorker } from '../support/airtable-worker.ts';

// 1,000 submissions of every kind through a flaky Airtable: a fifth of the requests fail with a 5xx (half of
// those after the write went in), a few time out. Every submission must end as exactly one record.
const BASE = `appDelivery${Date.now().toString(36)}`;
const KEY = 'patDeliveryTest';
let server: FakeAirtable;
let worker: AirtableWorker;
let queue: Queue;

beforeAll(async () => {
  // A fast limit keeps the test short; the ten-record and lock-out rules are the real ones.
  server = await startFakeAirtable({ apiKey: KEY, rateLimit: { requests: 50, windowMs: 1_000, lockoutMs: 2_000 } });
  worker = await startAirtableWorker(server, {
    apiKey: KEY,
    baseId: BASE,
    env: {
      AIRTABLE_RATE_LIMIT: '50',
      AIRTABLE_REQUEST_TIMEOUT_MS: '300',
      RETRY_MAX_DELAY_MS: '200',
    },
  });
  queue = worker.queue;
});

afterAll(async () => {
  await worker?.stop();
  await server?.close();
});

it('delivers 1,000 mixed submissions through 20% 5xx as one record each, none lost, none duplicated', async () => {
  server.faults.serverErrorRate = 0.2;
  server.faults.timeoutRate = 0.02;
  server.faults.hangMs = 500;
  const submissions = mixedSubmissions(1_000);
  await enqueueSubmissions(queue, submissions);

  const done = await waitForDrain(queue, submissions.length, 60_000);
  expect(done).toEqual({ completed: 1_000, failed: 0 });

  const check = checkDelivery(server, BASE, submissions, loadAirtableMapping());
  expect(check.lost).toEqual([]);
  expect(check.duplicated).toEqual([]);
  expect(check.found).toBe(check.expected);

  // Newer wins per contact, whatever failed: each contact's name is its newest submission's.
  const newest = new Map<string, string>();
  for (const s of [...submissions].sort((a, b) => a.acceptedAt.localeCompare(b.acceptedAt)))
    if (s.kind === 'contact' || s.kind === 'contact-update') newest.set(String(s.data.email), String(s.data.name));
  const names = new Map(server.records(BASE, 'Contacts').map((r) => [String(r.fields.Email), r.fields.Name]));
  expect(names).toEqual(newest);
  // The faults really happened, requests were batched, and every one asked for typecast.
  expect(server.stats.byStatus[503] ?? 0).toBeGreaterThan(5);
  expect(server.stats.byStatus[502] ?? 0).toBeGreaterThan(5);
  expect(server.stats.batchSizes.every((n) => n <= 10)).toBe(true);
  expect(server.stats.recordsWritten / server.stats.batchSizes.length).toBeGreaterThan(5);
  expect(server.stats.withoutTypecast).toBe(0);
  expect(server.stats.rateLimited).toBe(0);

  // Each job keeps Airtable's record id beside ours.
  const sample = await queue.getJob(submissions[3]!.submissionId);
  const write = server.records(BASE, 'Signups').find((r) => r.fields['Submission ID'] === submissions[3]!.submissionId);
  expect(sample?.returnvalue).toEqual({ crmRecordId: write?.id });
  // Each record Airtable confirmed, or skipped because newer writes had already set all its fields.
  const stats = (worker.worker.crm as AirtableCrm).stats();
  expect(stats.records + stats.olderSkipped).toBeGreaterThanOrEqual(1_000);
});
