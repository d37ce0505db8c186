import { Writable } from 'node:stream';
import { erasureKeys } from '@forms/schemas';
import { createPostgresCrm, createWorkerRedis, loadConfig, startWorker } from '@forms/worker';
import pino from 'pino';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { runOps } from '../support/ops-cli.ts';
import { type Pipeline, startPipeline } from '../support/pipeline.ts';
import { sampleIfShown, scrape } from '../support/prometheus.ts';

// After an erase, a worker without ERASURE_KEY cannot check tombstones and holds every delivery. Holding is
// right; holding silently is not: it says so at start-up in one line naming the setting, its /readyz
// answers 503 with the reason, the gateway's /readyz and metrics say deliveries are held, and so does
// `ops status`.
const ADMIN_TOKEN = 'erase-recorded-admin-token';
let pipeline: Pipeline;
let logs = '';

beforeAll(async () => {
  pipeline = await startPipeline({ ADMIN_TOKEN, METRICS_PORT: '0', METRICS_HOST: '127.0.0.1' }, { withWorker: false });
  const config = loadConfig({ ...pipeline.env, LOG_LEVEL: 'info' });
  const redis = createWorkerRedis(config.redis);
  // What the first `ops erase` leaves for good.
  await redis.set(erasureKeys(config.redis, config.queueName).anyErasure, '1');
  redis.disconnect();
  const sink = new Writable({
    write(chunk, _encoding, done) {
      logs += chunk;
      done();
    },
  });
  pipeline.worker = await startWorker(config, pino({ level: 'info' }, sink), { crm: createPostgresCrm(pipeline.db) });
});
afterAll(async () => {
  await pipeline?.stop();
});

it('says so at start-up, once, naming ERASURE_KEY', () => {
  expect(logs.split('\n').filter((line) => line.includes('ERASURE_KEY is not set'))).toHaveLength(1);
});

it("the worker's /readyz is 503 with the reason; the gateway's says deliveries are held", async () => {
  const worker = await fetch(pipeline.worker!.metricsUrl!.replace('/admin/metrics', '/readyz'));
  expect(worker.status).toBe(503);
  expect(await worker.json()).toEqual({ status: 'not ready', reason: expect.stringContaining('ERASURE_KEY') });
  const gateway = await (await fetch(`${pipeline.gateway.url}/readyz`)).json();
  expect(gateway.deliveries).toEqual({
    status: 'held',
    reason: expect.stringContaining('1 worker(s) without ERASURE_KEY'),
  });
  const { families } = await scrape(`${pipeline.gateway.url}/admin/metrics`, ADMIN_TOKEN);
  expect(sampleIfShown(families, 'forms_workers_without_erasure_key')).toBe(1);
});

it('ops status shows the held deliveries', async () => {
  const run = await runOps(['status'], pipeline.env);
  expect(run.code, run.stderr).toBe(0);
  expect(run.stdout).toContain('deliveries HELD: 1 worker(s) without ERASURE_KEY');
});

it('once the worker stops, nothing is held', async () => {
  await pipeline.worker!.stop();
  pipeline.worker = undefined;
  const gateway = await (await fetch(`${pipeline.gateway.url}/readyz`)).json();
  expect(gateway.deliveries).toEqual({ status: 'ok' });
});
