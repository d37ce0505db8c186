import { Writable } from 'node:stream';
import { loadConfig as gatewayConfig, type RunningGateway, startGateway } from '@forms/gateway';
import { loadAirtableMapping, loadConfig, type RunningWorker, startWorker } from '@forms/worker';
import { Queue, QueueEvents } from 'bullmq';
import { Redis } from 'ioredis';
import { pino } from 'pino';
import { afterAll, beforeAll, expect, inject, it } from 'vitest';
import { type FakeAirtable, startFakeAirtable } from '../support/airtable-server.ts';
import { checkDelivery, enqueueSubmissions, mixedSubmissions, waitForDrain } from '../support/airtable-submissions.ts';
import { runOps } from '../support/ops-cli.ts';
import { sleep } from '../support/wait.ts';

// Seen: with a wrong (expired, rotated) token every job went to the failed set on its first attempt
// (attemptsMade=1 … 401). A bad credential is the base's fault, not the record's: the base pauses, the jobs
// wait without spending attempts, the error names the variable to fix, the state is in Redis for readiness
// and ops, and delivery resumes by itself once the credential works.
// Seen later: `ops status` said the base was "sending" all the while, since it looked for the reason under
// five guessed key names and never read the fault record the worker writes.
const BASE = `appAuth${Date.now().toString(36)}`;
const QUEUE_NAME = `airtable-401-${Date.now()}`;
const GOOD_KEY = 'patRotatedIn';
const PROBE_MS = 300;
let server: FakeAirtable;
let worker: RunningWorker;
let queue: Queue;
let events: QueueEvents;
let redis: Redis;
let gateway: RunningGateway;
let logs = '';
let failures = 0;

beforeAll(async () => {
  server = await startFakeAirtable({ apiKey: 'patStillTheOldOne' });
  redis = new Redis(inject('redisUrl'), { maxRetriesPerRequest: null });
  queue = new Queue(QUEUE_NAME, { connection: { url: inject('redisUrl') } });
  events = new QueueEvents(QUEUE_NAME, { connection: { url: inject('redisUrl') } });
  events.on('failed', () => failures++);
  await events.waitUntilReady();
  const sink = new Writable({
    write(chunk, _encoding, done) {
      logs += chunk;
      done();
    },
  });
  worker = await startWorker(
    loadConfig({
      REDIS_URL: inject('redisUrl'),
      QUEUE_NAME: QUEUE_NAME,
      AIRTABLE_API_KEY: GOOD_KEY,
      AIRTABLE_BASE_ID: BASE,
      AIRTABLE_ENDPOINT_URL: server.url,
      AIRTABLE_RATE_LIMIT: '50',
      AIRTABLE_FAULT_PROBE_MS: String(PROBE_MS),
      RETRY_BASE_DELAY_MS: '20',
    }),
    pino({ level: 'info' }, sink),
  );
});

afterAll(async () => {
  await worker?.stop();
  await events?.close();
  await queue?.obliterate({ force: true });
  await queue?.close();
  redis?.disconnect();
  await gateway?.stop();
  await server?.close();
});

it('a 401 pauses the base, keeps every job, names AIRTABLE_API_KEY in logs, readiness and ops status, and resumes once the token works', async () => {
  const submissions = mixedSubmissions(44);
  await enqueueSubmissions(queue, submissions);
  await sleep(6 * PROBE_MS);

  expect(failures).toBe(0);
  expect(await queue.getJobCounts('failed', 'completed')).toEqual({ failed: 0, completed: 0 });
  expect(server.stats.byStatus[401]).toBeGreaterThanOrEqual(1);
  // Probing, not hammering: about one request per probe interval while paused.
  expect(server.stats.requests).toBeLessThanOrEqual(10);
  // The documented key, as readiness, metrics and the ops CLI read it (readAirtableBaseFault parses it).
  const fault = JSON.parse((await redis.get(`airtable:{${BASE}}:fault`)) ?? 'null');
  expect(fault).toMatchObject({ status: 401, variable: 'AIRTABLE_API_KEY' });
  expect(logs).toMatch(/"level":50.*AIRTABLE_API_KEY/);
  expect(logs).not.toContain(GOOD_KEY); // names the variable, never the secret
  // Readiness shows it too: the gateway stays ready (submissions queue), and names what to fix.
  gateway = await startGateway(
    gatewayConfig({
      PORT: '0',
      HOST: '127.0.0.1',
      REDIS_URL: inject('redisUrl'),
      AIRTABLE_BASE_ID: BASE,
      LOG_LEVEL: 'silent',
    }),
  );
  const paused = await fetch(`${gateway.url}/readyz`);
  expect(paused.status).toBe(200);
  expect(await paused.json()).toMatchObject({
    status: 'ready',
    crm: { status: 'paused', fault: { status: 401, variable: 'AIRTABLE_API_KEY' } },
  });

  // And the ops CLI, in JSON and in words.
  const ops = { REDIS_URL: inject('redisUrl'), QUEUE_NAME, AIRTABLE_BASE_ID: BASE };
  const status = await runOps(['status', '--json'], ops);
  expect(status.code, status.stderr).toBe(0);
  expect(status.json.crm).toMatchObject({
    paused: true,
    fault: { status: 401, type: 'AUTHENTICATION_REQUIRED', variable: 'AIRTABLE_API_KEY' },
  });
  expect((await runOps(['status'], ops)).stdout).toMatch(
    /PAUSED[\s\S]*401 AUTHENTICATION_REQUIRED since [\s\S]*fix AIRTABLE_API_KEY/,
  );

  server.setApiKey(GOOD_KEY); // the operator fixes the credential
  expect(await waitForDrain(queue, submissions.length, 15_000)).toEqual({ completed: 44, failed: 0 });
  expect(failures).toBe(0);
  expect(await redis.get(`airtable:{${BASE}}:fault`)).toBeNull();
  expect(await (await fetch(`${gateway.url}/readyz`)).json()).toMatchObject({ crm: { status: 'ok' } });
  const check = checkDelivery(server, BASE, submissions, loadAirtableMapping());
  expect([check.lost, check.duplicated]).toEqual([[], []]);
});
