import { submissionKeys } from '@forms/schemas';
import { loadConfig, type RunningWorker, startWorker } from '@forms/worker';
import { afterAll, beforeAll, expect, inject, it } from 'vitest';
import { type FakeAirtable, startFakeAirtable } from '../support/airtable-server.ts';
import { airtableWorkerEnv } from '../support/airtable-worker.ts';
import { sendJson } from '../support/http.ts';
import { startTestGateway, type TestGateway } from '../support/test-gateway.ts';
import { validBody } from '../support/valid-bodies.ts';
import { eventually } from '../support/wait.ts';

// Issue 31, on the Airtable driver: a keyed submission delivered, then its client's retry (same
// Idempotency-Key, same body) reaching a Redis that holds none of it (a replica promoted before the
// first attempt's writes reached it: no idempotency record, no contact claim, no job). The retry is
// accepted as new; it must still be the same submission and the same contact: one record, the recordId
// answered the record's.
const BASE = `appKeyedRetry${Date.now().toString(36)}`;
const KEY = 'patKeyedRetry';
let server: FakeAirtable;
let gateway: TestGateway;
let worker: RunningWorker;

beforeAll(async () => {
  server = await startFakeAirtable({ apiKey: KEY });
  gateway = await startTestGateway(inject('redisUrl'), { RATE_LIMIT_REQUESTS: '0' });
  const env = airtableWorkerEnv(server, { apiKey: KEY, baseId: BASE, queueName: gateway.queueName });
  worker = await startWorker(loadConfig({ ...env, LOG_LEVEL: 'silent', AIRTABLE_RATE_LIMIT: '100' }));
});

afterAll(async () => {
  await worker?.stop();
  await gateway?.stop();
  await server?.close();
});

async function send(path: string, body: unknown, key: string): Promise<string> {
  const answer = await sendJson(gateway.url + path, body, 'POST', { 'idempotency-key': key });
  expect(answer.status).toBe(200);
  return answer.body.recordId;
}

/** What a failover to a replica that never saw the first attempt leaves of it in Redis: nothing. */
async function forget(email: string, key: string, submissionId: string) {
  const keys = submissionKeys({ prefix: 'bull' }, gateway.queueName);
  await gateway.redis.del(keys.idempotency(key), keys.contact(email));
  await (await gateway.queue.getJob(submissionId))?.remove();
}

it.each([
  ['/api/contact', 'contact', 'Contacts', 'Email'],
  ['/api/creator-signup', 'creator-signup', 'Creators', 'Email'],
] as const)(
  '%s: the retry is the same record, under the recordId first answered',
  async (path, kind, table, emailField) => {
    const body = validBody(kind, `keyed-retry-${Date.now().toString(36)}`);
    const email = String(body.email);
    const key = `retry-${kind}-${Date.now()}`;
    const first = await send(path, body, key);
    const records = () => server.records(BASE, table).filter((r) => r.fields[emailField] === email);
    const completed = async () =>
      (await gateway.queue.getJobs(['completed'], 0, 1000)).find((j) => j.data.data.email === email);
    await eventually(async () => (await completed()) !== undefined && records().length === 1, { timeoutMs: 15_000 });
    await forget(email, key, (await completed())!.id!);

    const retried = await send(path, body, key);
    // The retry's job delivered (the first attempt's was removed with the rest of it).
    await eventually(async () => (await completed()) !== undefined, { timeoutMs: 15_000 });
    const stored = records();
    expect({ answered: retried, records: stored.length, recordIds: stored.map((r) => r.fields['Record ID']) }).toEqual({
      answered: first,
      records: 1,
      recordIds: [first],
    });
  },
);
