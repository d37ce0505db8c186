import { randomBytes } from 'node:crypto';
import { Writable } from 'node:stream';
import {
  type Crm,
  createPostgresCrm,
  type Eraser,
  openEraser,
  startWorker,
  loadConfig as workerConfig,
} from '@forms/worker';
import type { Job } from 'bullmq';
import pino from 'pino';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { sendJson } from '../support/http.ts';
import { runOps } from '../support/ops-cli.ts';
import { type Pipeline, startPipeline } from '../support/pipeline.ts';
import { sampleIfShown, scrape } from '../support/prometheus.ts';
import { eventually } from '../support/wait.ts';

// Tombstones are named by an HMAC under ERASURE_KEY: a worker whose key differs from the one the erase used
// never finds one. It used to deliver as if it agreed, writing an erased person back to the CRM. Now the
// first worker or erase records the key's check value in Redis, and a worker whose key differs holds every
// delivery (as one without a key does), says so once naming ERASURE_KEY, is not ready, and shows in the
// gateway's /readyz and metrics and in `ops status`; `ops erase` under a different key refuses.
const ADMIN_TOKEN = 'different-erasure-key-admin-token';
const ERASURE_KEY = randomBytes(32).toString('hex');
const OTHER_KEY = randomBytes(32).toString('hex');
let pipeline: Pipeline;
let eraser: Eraser;
let logs = '';
let adaJob: Job;
let graceJob: Job;

/** The pipeline's CRM, left open when a worker stops (the test reads it after). */
function keptCrm(): Crm {
  return { ...createPostgresCrm(pipeline.db), close: async () => {} };
}

beforeAll(async () => {
  pipeline = await startPipeline(
    {
      ADMIN_TOKEN,
      ERASURE_KEY,
      METRICS_PORT: '0',
      METRICS_HOST: '127.0.0.1',
      // Retries every second: the held jobs are tried (and held) again while the test looks.
      RETRY_BASE_DELAY_MS: '1000',
      RETRY_MAX_DELAY_MS: '1000',
    },
    { withWorker: false },
  );
  // Two submissions while no worker runs; then Ada is erased under ERASURE_KEY (the first erase records it).
  for (const email of ['ada@acme.io', 'grace@acme.io'])
    expect((await sendJson(`${pipeline.gateway.url}/api/contact`, { email, name: 'Someone' })).status).toBe(200);
  const [ada, grace] = await Promise.all(
    ['ada@acme.io', 'grace@acme.io'].map(async (email) =>
      (await pipeline.queue.getJobs(['waiting'])).find((job) => job.data.data.email === email),
    ),
  );
  eraser = openEraser({ config: workerConfig(pipeline.env), crm: keptCrm(), storage: undefined, actor: 'test' });
  const report = await eraser.erase('ada@acme.io', { dryRun: false, activeWaitMs: 1_000 });
  expect(report.jobs).toEqual({ waiting: 1 });
  // Ada's job as it was accepted, before the erase, turning up again: a retry, a stalled job taken back.
  adaJob = await pipeline.queue.add(ada!.name, ada!.data, { ...ada!.opts, jobId: ada!.id! });
  graceJob = grace!;
  const sink = new Writable({
    write(chunk, _encoding, done) {
      logs += chunk;
      done();
    },
  });
  const config = workerConfig({ ...pipeline.env, ERASURE_KEY: OTHER_KEY, LOG_LEVEL: 'info' });
  pipeline.worker = await startWorker(config, pino({ level: 'info' }, sink), { crm: keptCrm() });
});
afterAll(async () => {
  await eraser?.close();
  await pipeline?.stop();
});

it('delivers nothing: the erased person is not written back, nor anyone else', async () => {
  // Both jobs tried (and held) at least once, each with the reason naming the setting.
  await eventually(async () => {
    for (const job of [adaJob, graceJob]) {
      const now = (await pipeline.queue.getJob(job.id!))!;
      if (now.attemptsMade < 1) return false;
      expect(now.failedReason).toContain('ERASURE_KEY differs');
    }
    return true;
  });
  const { rows } = await pipeline.db.query('SELECT email FROM contacts');
  expect(rows).toEqual([]);
});

it('says so at start-up, once, naming ERASURE_KEY and never the secret', () => {
  // One line for the worker (each held attempt is logged as a retry besides, with the same reason).
  const lines = logs.split('\n').filter((line) => line.includes('this worker: ERASURE_KEY differs'));
  expect(lines, logs).toHaveLength(1);
  expect(logs).not.toContain(OTHER_KEY);
  expect(logs).not.toContain(ERASURE_KEY);
});

it("the worker's /readyz is 503 naming ERASURE_KEY; the gateway's says deliveries are held; the gauge counts it", async () => {
  const worker = await fetch(pipeline.worker!.metricsUrl!.replace('/admin/metrics', '/readyz'));
  expect(worker.status).toBe(503);
  const body = await worker.json();
  expect(body).toEqual({ status: 'not ready', reason: expect.stringContaining('ERASURE_KEY differs') });
  expect(JSON.stringify(body)).not.toContain(OTHER_KEY);
  const gateway = await (await fetch(`${pipeline.gateway.url}/readyz`)).json();
  expect(gateway.deliveries).toEqual({
    status: 'held',
    reason: expect.stringContaining('1 worker(s): ERASURE_KEY differs'),
  });
  const { families } = await scrape(`${pipeline.gateway.url}/admin/metrics`, ADMIN_TOKEN);
  expect(sampleIfShown(families, 'forms_shared_secret_differs', { variable: 'ERASURE_KEY' })).toBe(1);
  expect(sampleIfShown(families, 'forms_shared_secret_differs', { variable: 'ID_KEY' })).toBe(0);
});

it('ops status shows the held deliveries and the differing secret', async () => {
  const run = await runOps(['status'], pipeline.env);
  expect(run.code, run.stderr).toBe(0);
  expect(run.stdout).toContain('deliveries HELD: 1 worker(s): ERASURE_KEY differs');
  expect(run.stdout).toContain('ERASURE_KEY recorded, DIFFERS in 1 process(es)');
});

it('ops erase with the other key refuses, naming ERASURE_KEY, and changes nothing', async () => {
  const run = await runOps(['erase', '--email', 'grace@acme.io', '--yes'], { ...pipeline.env, ERASURE_KEY: OTHER_KEY });
  expect(run.code, run.stdout).toBe(2);
  expect(run.stderr).toContain('ERASURE_KEY differs from the one the workers and earlier erases recorded');
  expect(run.stderr).not.toContain(OTHER_KEY);
  expect(await pipeline.queue.getJob(graceJob.id!)).toBeDefined();
});

it('a worker in a rotation window (the new key, the old as ERASURE_KEY_PREVIOUS) refuses Ada and delivers Grace', async () => {
  await pipeline.worker!.stop();
  pipeline.worker = await startWorker(
    workerConfig({ ...pipeline.env, ERASURE_KEY: OTHER_KEY, ERASURE_KEY_PREVIOUS: ERASURE_KEY }),
    pino({ level: 'silent' }),
    { crm: keptCrm() },
  );
  expect(pipeline.worker.notReady()).toBeUndefined();
  await eventually(async () => (await pipeline.queue.getJob(graceJob.id!))?.finishedOn !== undefined);
  await eventually(async () => (await pipeline.queue.getJob(adaJob.id!))?.finishedOn !== undefined);
  expect((await pipeline.queue.getJob(adaJob.id!))!.data).toMatchObject({ erased: true });
  const { rows } = await pipeline.db.query('SELECT email FROM contacts');
  expect(rows).toEqual([{ email: 'grace@acme.io' }]);
});
