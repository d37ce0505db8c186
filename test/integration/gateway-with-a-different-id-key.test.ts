import { randomBytes } from 'node:crypto';
import { Writable } from 'node:stream';
import { loadConfig as gatewayConfig, type RunningGateway, startGateway } from '@forms/gateway';
import pino from 'pino';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { sendJson } from '../support/http.ts';
import { runOps } from '../support/ops-cli.ts';
import { type Pipeline, startPipeline } from '../support/pipeline.ts';
import { sampleIfShown, scrape } from '../support/prometheus.ts';
import { spawnGateway } from '../support/spawn-app.ts';
import { eventually } from '../support/wait.ts';

// Contact ids and keyed submission ids are HMACs under ID_KEY: two gateways with different keys derive
// different ids for the same email or Idempotency-Key (a keyed retry stored twice, a contact answered another
// recordId). A gateway whose ID_KEY differs from the one the first gateway recorded in Redis used to serve
// as if it agreed; now it is not ready (/readyz 503 naming ID_KEY), takes no submission, says so once, and
// shows in the metrics and `ops status` until its key agrees or `ops rekey ID_KEY` records its key.
const ADMIN_TOKEN = 'different-id-key-admin-token';
const ID_KEY = randomBytes(32).toString('hex');
const OTHER_KEY = randomBytes(32).toString('hex');
let pipeline: Pipeline;
let other: RunningGateway;
let logs = '';
const extra: RunningGateway[] = [];

beforeAll(async () => {
  pipeline = await startPipeline({ ADMIN_TOKEN, ID_KEY }, { withWorker: false });
  const sink = new Writable({
    write(chunk, _encoding, done) {
      logs += chunk;
      done();
    },
  });
  other = await startGateway(
    gatewayConfig({ ...pipeline.env, ID_KEY: OTHER_KEY, PORT: '0', HOST: '127.0.0.1', LOG_LEVEL: 'info' }),
    pino({ level: 'info' }, sink),
  );
});
afterAll(async () => {
  await other?.stop();
  for (const gateway of extra) await gateway.stop();
  await pipeline?.stop();
});

it('is not ready: /readyz 503 naming ID_KEY, never the secret; the first gateway stays ready', async () => {
  const res = await fetch(`${other.url}/readyz`);
  expect(res.status).toBe(503);
  const body = await res.json();
  expect(body).toMatchObject({ status: 'unavailable', redis: 'ok', reason: expect.stringContaining('ID_KEY differs') });
  expect(JSON.stringify(body)).not.toContain(OTHER_KEY);
  expect((await fetch(`${pipeline.gateway.url}/readyz`)).status).toBe(200);
});

it('takes no submission (503 GATEWAY_NOT_READY with Retry-After, nothing queued); the first gateway takes it', async () => {
  const refused = await sendJson(`${other.url}/api/contact`, { email: 'ada@acme.io' });
  expect(refused.status).toBe(503);
  expect(refused.body.code).toBe('GATEWAY_NOT_READY');
  expect(refused.headers.get('retry-after')).toBe('5');
  expect(await pipeline.queue.count()).toBe(0);
  expect((await sendJson(`${pipeline.gateway.url}/api/contact`, { email: 'ada@acme.io' })).status).toBe(200);
});

it('says so at start-up, once, naming ID_KEY and never the secret', () => {
  const lines = logs.split('\n').filter((line) => line.includes('this gateway: ID_KEY differs'));
  expect(lines, logs).toHaveLength(1);
  expect(logs).not.toContain(OTHER_KEY);
  expect(logs).not.toContain(ID_KEY);
});

it('shows in the metrics and in ops status', async () => {
  const { families } = await scrape(`${pipeline.gateway.url}/admin/metrics`, ADMIN_TOKEN);
  expect(sampleIfShown(families, 'forms_shared_secret_differs', { variable: 'ID_KEY' })).toBe(1);
  const run = await runOps(['status'], pipeline.env);
  expect(run.code, run.stderr).toBe(0);
  expect(run.stdout).toContain('ID_KEY recorded, DIFFERS in 1 process(es)');
  expect(run.stdout).toContain('gateways NOT READY: 1 gateway(s): ID_KEY differs');
});

it('ops rekey ID_KEY refuses off a terminal without --yes, then records the new key: its gateways are ready, the old one is not', async () => {
  const asked = await runOps(['rekey', 'ID_KEY'], { ...pipeline.env, ID_KEY: OTHER_KEY });
  expect(asked.code).toBe(2);
  const run = await runOps(['rekey', 'ID_KEY', '--yes'], { ...pipeline.env, ID_KEY: OTHER_KEY });
  expect(run.code, run.stderr).toBe(0);
  expect(run.stdout).toContain('ID_KEY: recorded');
  // A gateway started now with the new key is ready at once; the running ones see it at their next check.
  const fresh = await startGateway(
    gatewayConfig({ ...pipeline.env, ID_KEY: OTHER_KEY, PORT: '0', HOST: '127.0.0.1' }),
    pino({ level: 'silent' }),
  );
  extra.push(fresh);
  expect((await fetch(`${fresh.url}/readyz`)).status).toBe(200);
  await eventually(async () => (await fetch(`${pipeline.gateway.url}/readyz`)).status === 503, { timeoutMs: 20_000 });
  await eventually(async () => (await fetch(`${other.url}/readyz`)).status === 200, { timeoutMs: 20_000 });
});

it('a production gateway without ID_KEY does not start, naming ID_KEY', async () => {
  const start = spawnGateway({ REDIS_URL: pipeline.env.REDIS_URL!, NODE_ENV: 'production', ID_KEY: '' });
  await expect(start).rejects.toThrow(/ID_KEY is not set and NODE_ENV is production/);
});
