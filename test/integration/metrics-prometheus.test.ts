import { readFileSync } from 'node:fs';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { sendJson } from '../support/http.ts';
import { type Pipeline, startPipeline } from '../support/pipeline.ts';
import { histogramCount, promtoolCheck, sampleValue, scrape } from '../support/prometheus.ts';
import { validBody } from '../support/valid-bodies.ts';
import { eventually } from '../support/wait.ts';

// /admin/metrics on the gateway and on the worker's own port: accepted by Prometheus text-format parsers
// (parse-prometheus-text-format, and Prometheus's own promtool where installed), counters move after traffic.
const TOKEN = 'metrics-token-for-tests-0123456789';
let pipeline: Pipeline;
let gatewayMetrics: string;
let workerMetrics: string;

beforeAll(async () => {
  pipeline = await startPipeline({ ADMIN_TOKEN: TOKEN, METRICS_PORT: '0', METRICS_HOST: '127.0.0.1' });
  gatewayMetrics = `${pipeline.gateway.url}/admin/metrics`;
  workerMetrics = pipeline.worker!.metricsUrl!;
});
afterAll(async () => {
  await pipeline?.stop();
});

it('counters move after traffic, on the gateway and on the worker', async () => {
  const gw0 = await scrape(gatewayMetrics, TOKEN);
  const wk0 = await scrape(workerMetrics, TOKEN);
  const route = { route: '/api/contact', method: 'POST' };
  const before = {
    ok: sampleValue(gw0.families, 'forms_http_requests_total', { ...route, status: '200' }),
    bad: sampleValue(gw0.families, 'forms_http_requests_total', { ...route, status: '400' }),
    ack: histogramCount(gw0.text, 'forms_http_request_duration_seconds', route),
    enqueue: histogramCount(gw0.text, 'forms_enqueue_duration_seconds'),
    writes: sampleValue(wk0.families, 'forms_crm_writes_total', { outcome: 'ok' }),
    delay: histogramCount(wk0.text, 'forms_delivery_delay_seconds', { kind: 'contact' }),
    duration: histogramCount(wk0.text, 'forms_job_duration_seconds', { kind: 'contact', outcome: 'delivered' }),
  };

  for (let i = 0; i < 5; i++)
    expect(
      (await sendJson(`${pipeline.gateway.url}/api/contact`, validBody('contact', `m${i}-${Date.now()}`))).status,
    ).toBe(200);
  expect((await sendJson(`${pipeline.gateway.url}/api/contact`, { email: 'not-an-email' })).status).toBe(400);
  await eventually(async () => ((await pipeline.queue.getJobCounts('completed')).completed ?? 0) >= 5);

  const gw = await scrape(gatewayMetrics, TOKEN);
  const wk = await scrape(workerMetrics, TOKEN);
  expect(sampleValue(gw.families, 'forms_http_requests_total', { ...route, status: '200' }) - before.ok).toBe(5);
  expect(sampleValue(gw.families, 'forms_http_requests_total', { ...route, status: '400' }) - before.bad).toBe(1);
  expect(histogramCount(gw.text, 'forms_http_request_duration_seconds', route) - before.ack).toBe(6);
  expect(histogramCount(gw.text, 'forms_enqueue_duration_seconds') - before.enqueue).toBe(5);
  expect(sampleValue(gw.families, 'forms_queue_jobs', { state: 'completed' })).toBeGreaterThanOrEqual(5);
  expect(sampleValue(wk.families, 'forms_crm_writes_total', { outcome: 'ok' }) - before.writes).toBe(5);
  expect(histogramCount(wk.text, 'forms_delivery_delay_seconds', { kind: 'contact' }) - before.delay).toBe(5);
  expect(
    histogramCount(wk.text, 'forms_job_duration_seconds', { kind: 'contact', outcome: 'delivered' }) - before.duration,
  ).toBe(5);

  // Every family the dashboard reads is present with its type.
  const types = Object.fromEntries([...gw.families, ...wk.families].map((f) => [f.name, f.type]));
  expect(types).toMatchObject({
    forms_http_requests_total: 'COUNTER',
    forms_http_request_duration_seconds: 'HISTOGRAM',
    forms_enqueue_duration_seconds: 'HISTOGRAM',
    forms_queue_jobs: 'GAUGE',
    forms_job_duration_seconds: 'HISTOGRAM',
    forms_delivery_delay_seconds: 'HISTOGRAM',
    forms_crm_writes_total: 'COUNTER',
  });

  // The Grafana dashboard reads only metrics the apps expose.
  const dashboard = readFileSync(new URL('../../infra/grafana/forms-pipeline.json', import.meta.url), 'utf8');
  const used = new Set([...dashboard.matchAll(/forms_[a-z_]+/g)].map((m) => m[0].replace(/_bucket$/, '')));
  expect([...used].filter((name) => !(name in types))).toEqual([]);

  for (const { text } of [gw, wk]) {
    const check = promtoolCheck(text);
    if (check.available) expect(check, check.output).toMatchObject({ parsed: true, ourLintProblems: [] });
    else if (process.env.CI) throw new Error(`promtool missing in CI: ${check.output}`);
  }
});

it('the worker port answers 401 without the token and 404 off /admin/metrics', async () => {
  expect((await fetch(workerMetrics)).status).toBe(401);
  expect((await fetch(workerMetrics, { headers: { authorization: 'Bearer wrong-token-wrong-token' } })).status).toBe(
    401,
  );
  expect((await fetch(workerMetrics.replace('/admin/metrics', '/metrics'))).status).toBe(404);
});
