import { randomUUID } from 'node:crypto';
import { loadConfig as gatewayConfig, type RunningGateway, startGateway } from '@forms/gateway';
import { type RunningWorker, startWorker, loadConfig as workerConfig } from '@forms/worker';
import { Queue } from 'bullmq';
import { afterAll, beforeAll, expect, inject, it } from 'vitest';
import { type FakeAirtable, startFakeAirtable } from '../support/airtable-server.ts';
import { sendJson } from '../support/http.ts';
import { type PrometheusStack, startPrometheusStack, targetsUp } from '../support/prometheus-stack.ts';
import { validBody } from '../support/valid-bodies.ts';
import { eventually, sleep } from '../support/wait.ts';

// The shipped alert rules against the real apps, end to end: a real Prometheus scrapes the gateway and the
// worker with the admin token (the shipped scrape configuration), evaluates infra/prometheus/alerts.yml
// with its durations divided by SCALE (5 minutes become 10 s: configuration, not waiting), and a real
// Alertmanager notifies a webhook receiver this test runs. The CRM (the local Airtable server) answers 503
// to every write: FormsCrmWritesFailing reaches the receiver firing; the CRM comes back: it reaches it
// resolved.
const SCALE = 30;
const TOKEN = 'admin-token-for-alert-tests-0123';
const BASE = `appAlerts${Date.now().toString(36)}`;
const KEY = 'patAlertsTest';
let server: FakeAirtable;
let worker: RunningWorker;
let gateway: RunningGateway;
let queue: Queue;
let stack: PrometheusStack;

beforeAll(async () => {
  server = await startFakeAirtable({ apiKey: KEY, rateLimit: { requests: 1000, windowMs: 1_000, lockoutMs: 2_000 } });
  const env = {
    REDIS_URL: inject('redisUrl'),
    QUEUE_NAME: `alerts-${randomUUID()}`,
    LOG_LEVEL: 'silent',
    ADMIN_TOKEN: TOKEN,
    AIRTABLE_API_KEY: KEY,
    AIRTABLE_BASE_ID: BASE,
    AIRTABLE_ENDPOINT_URL: server.url,
    AIRTABLE_RATE_LIMIT: '50',
    AIRTABLE_REQUEST_TIMEOUT_MS: '500',
    // Retries at the pace of the scaled rules: a failing job tries again every second or so.
    RETRY_BASE_DELAY_MS: '250',
    RETRY_MAX_DELAY_MS: '1000',
  };
  worker = await startWorker(workerConfig({ ...env, METRICS_PORT: '0', METRICS_HOST: '127.0.0.1' }));
  gateway = await startGateway(gatewayConfig({ ...env, PORT: '0', HOST: '127.0.0.1' }));
  queue = new Queue(env.QUEUE_NAME, { connection: { url: env.REDIS_URL } });
  stack = await startPrometheusStack({
    gatewayTarget: new URL(gateway.url).host,
    workerTarget: new URL(worker.metricsUrl!).host,
    adminToken: TOKEN,
    scale: SCALE,
  });
}, 90_000);

afterAll(async () => {
  await stack?.stop();
  await gateway?.stop();
  await worker?.stop();
  await queue?.obliterate({ force: true });
  await queue?.close();
  await server?.close();
});

/** A site's steady trickle: one submission every this many ms. */
const TRICKLE_EVERY_MS = 250;

/** Submissions at a steady trickle until `stop` is called, as a site sends them; bounded in count. */
function trickle(tag: string) {
  let running = true;
  const done = (async () => {
    for (let i = 0; running && i < 600; i++) {
      const res = await sendJson(`${gateway.url}/api/creator-signup`, validBody('creator-signup', `${tag}-${i}`));
      expect(res.status).toBe(200);
      await sleep(TRICKLE_EVERY_MS);
    }
  })();
  return async () => {
    running = false;
    await done;
  };
}

const notified = (status: 'firing' | 'resolved') =>
  stack.notifications.some(
    (n) => n.status === status && n.alerts.some((a) => a.labels.alertname === 'FormsCrmWritesFailing'),
  );

it('the CRM down: FormsCrmWritesFailing reaches the webhook firing; the CRM back: it reaches it resolved', async () => {
  await eventually(
    async () => {
      const up = await targetsUp(stack.prometheusUrl);
      return up['forms-gateway'] === 'up' && up['forms-worker'] === 'up';
    },
    { timeoutMs: 20_000, everyMs: 250 },
  );

  server.faults.serverErrorRate = 1;
  server.faults.serverErrorAfterWrite = 0;
  const stopDown = trickle('down');
  await eventually(async () => notified('firing'), { timeoutMs: 60_000, everyMs: 250 });
  await stopDown();
  // Another alert may have fired first (a notification is per group): take the one that carries ours.
  const alert = stack.notifications
    .filter((n) => n.status === 'firing')
    .flatMap((n) => n.alerts)
    .find((a) => a.labels.alertname === 'FormsCrmWritesFailing')!;
  expect(alert.labels.severity).toBe('page');
  expect(alert.annotations.runbook_url).toBe('docs/operations.md#crm-writes-failing');
  expect(notified('resolved')).toBe(false);

  server.faults.serverErrorRate = 0;
  const stopUp = trickle('up');
  await eventually(async () => notified('resolved'), { timeoutMs: 60_000, everyMs: 250 });
  await stopUp();
  // Whatever was retrying got through once the CRM was back.
  await eventually(async () => (await queue.getJobCounts('delayed', 'waiting', 'active', 'failed')).delayed === 0, {
    timeoutMs: 30_000,
  });
}, 180_000);
