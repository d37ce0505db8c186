import { JOB_OPTIONS, type JobPayload, jobNameFor } from '@forms/schemas';
import { Queue } from 'bullmq';
import { afterAll, beforeAll, expect, inject, it } from 'vitest';
import { type FakeAirtable, startFakeAirtable } from '../support/airtable-server.ts';
import { waitForDrain } from '../support/airtable-submissions.ts';
import { airtableWorkerEnv } from '../support/airtable-worker.ts';
import { spawnWorker, type WorkerProcess } from '../support/spawn-app.ts';

// The "merge key in flight" set was per process: two worker processes could upsert one new email at the
// same moment, and an Airtable that does not serialise performUpsert then held two records for it, after
// which every write for that email failed 422 (several records match). The fake here does not serialise.
const BASE = `appRace${Date.now().toString(36)}`;
const KEY = 'patRaceTest';
const EMAILS = 12;
const PER_EMAIL = 4;
let server: FakeAirtable;
let queue: Queue;
const workers: WorkerProcess[] = [];

beforeAll(async () => {
  server = await startFakeAirtable({ apiKey: KEY, unserialisedUpsertMs: 150 });
  const queueName = `airtable-race-${Date.now()}`;
  queue = new Queue(queueName, { connection: { url: inject('redisUrl') } });
  const env = {
    ...airtableWorkerEnv(server, { apiKey: KEY, baseId: BASE, queueName }),
    AIRTABLE_RATE_LIMIT: '100',
    RETRY_BASE_DELAY_MS: '50',
    RETRY_MAX_DELAY_MS: '200',
  };
  workers.push(...(await Promise.all([spawnWorker(env), spawnWorker(env)])));
});

afterAll(async () => {
  for (const w of workers) w.child.kill('SIGTERM');
  await Promise.all(workers.map((w) => w.exited));
  await queue?.obliterate({ force: true });
  await queue?.close();
  await server?.close();
});

it('two worker processes writing the same new emails make one record per email, newest values last', async () => {
  const runId = Date.now().toString(36);
  const submissions: JobPayload[] = [];
  for (let n = 0; n < PER_EMAIL; n++)
    for (let e = 0; e < EMAILS; e++)
      submissions.push({
        v: 1,
        submissionId: `sub_${runId}_${e}_${n}`,
        recordId: `con_${runId}_${e}`,
        kind: n % 2 === 0 ? 'contact' : 'contact-update',
        acceptedAt: new Date(Date.parse('2026-01-01T00:00:00Z') + n * 1000 + e).toISOString(),
        data: { email: `racer${e}.${runId}@acme.example`, name: `Version ${n}` },
      } as JobPayload);
  await queue.addBulk(
    submissions.map((s) => ({ name: jobNameFor(s.kind), data: s, opts: { ...JOB_OPTIONS, jobId: s.submissionId } })),
  );
  expect(await waitForDrain(queue, submissions.length, 25_000)).toEqual({ completed: submissions.length, failed: 0 });

  const rows = server.records(BASE, 'Contacts');
  const perEmail = new Map<string, number>();
  for (const row of rows) perEmail.set(String(row.fields.Email), (perEmail.get(String(row.fields.Email)) ?? 0) + 1);
  expect([...perEmail.values()].filter((n) => n > 1)).toEqual([]);
  expect(rows).toHaveLength(EMAILS);
  for (const row of rows) expect(row.fields.Name).toBe(`Version ${PER_EMAIL - 1}`);
  // Neither process logged an error (before: 422s, several records matching one email).
  for (const w of workers) expect(w.output()).not.toContain('"level":50');
});
