import { Writable } from 'node:stream';
import type { Queue } from 'bullmq';
import { pino } from 'pino';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { type FakeAirtable, startFakeAirtable } from '../support/airtable-server.ts';
import { enqueueSubmissions, mixedSubmissions, waitForDrain } from '../support/airtable-submissions.ts';
import { type AirtableWorker, startAirtableWorker } from '../support/airtable-worker.ts';

// Airtable's 422 messages can quote the value they refused. That message became the job's failedReason (kept
// in Redis until removed, shown to ops) and went into the logs: an email and a phone number, in plain text.
// The job must still say why it failed (the error type and the field), without the values.
const BASE = `appRedact${Date.now().toString(36)}`;
const KEY = 'patRedactTest';
let server: FakeAirtable;
let worker: AirtableWorker;
let queue: Queue;
let logs = '';

beforeAll(async () => {
  server = await startFakeAirtable({ apiKey: KEY });
  const sink = new Writable({
    write(chunk, _encoding, done) {
      logs += chunk;
      done();
    },
  });
  worker = await startAirtableWorker(server, {
    apiKey: KEY,
    baseId: BASE,
    env: { AIRTABLE_RATE_LIMIT: '50' },
    logger: pino({ level: 'debug' }, sink),
  });
  queue = worker.queue;
});

afterAll(async () => {
  await worker?.stop();
  await server?.close();
});

it('keeps the refused value out of the failed reason, the stack trace and the logs', async () => {
  const submissions = mixedSubmissions(22); // two of each kind
  const bad = submissions.find((s) => s.kind === 'cpa-signup')!;
  const { email, phoneNumber } = bad.data as { email: string; phoneNumber: string };
  // As Airtable words them: a select option it may not create, and a value it cannot parse.
  server.faults.rejectRecord = (_table, fields) =>
    fields.Email === email
      ? {
          type: 'INVALID_VALUE_FOR_COLUMN',
          message: `Cannot parse value "${phoneNumber}" for field Phone; Field "Email" cannot accept "${email}"`,
        }
      : undefined;

  await enqueueSubmissions(queue, submissions);
  expect(await waitForDrain(queue, submissions.length, 20_000)).toEqual({ completed: 21, failed: 1 });

  const [failed] = await queue.getJobs(['failed']);
  expect(failed!.id).toBe(bad.submissionId);
  expect(failed!.failedReason).toContain('INVALID_VALUE_FOR_COLUMN');
  expect(failed!.failedReason).toContain('for field Phone');
  for (const leaked of [failed!.failedReason, (failed!.stacktrace ?? []).join('\n'), logs]) {
    expect(leaked).not.toContain(email);
    expect(leaked).not.toContain(phoneNumber);
  }
  expect(logs).toContain('INVALID_VALUE_FOR_COLUMN'); // the split was logged, only without the values
});
