import { afterAll, beforeAll, expect, it } from 'vitest';
import { sendJson } from '../support/http.ts';
import { type Pipeline, startPipeline } from '../support/pipeline.ts';
import { sampleValue, scrape } from '../support/prometheus.ts';
import { validBody } from '../support/valid-bodies.ts';
import { sleep } from '../support/wait.ts';

// The gauges the alert rules read at scrape time: the age of the oldest waiting submission (the oldest,
// not the newest), and Redis's memory against its maxmemory. No worker, so what is submitted waits.
const TOKEN = 'admin-token-for-tests-0123456789';
let pipeline: Pipeline;
/** How old the first job is when the second comes: the age the gauge must show. */
const FIRST_JOB_AGE_MS = 1_500;

beforeAll(async () => {
  pipeline = await startPipeline({ ADMIN_TOKEN: TOKEN }, { withWorker: false });
});
afterAll(() => pipeline?.stop());

it('forms_queue_oldest_waiting_seconds is the age of the oldest waiting job; Redis memory is reported per node', async () => {
  const metrics = `${pipeline.gateway.url}/admin/metrics`;
  expect(sampleValue((await scrape(metrics, TOKEN)).families, 'forms_queue_oldest_waiting_seconds')).toBe(0);
  expect((await sendJson(`${pipeline.gateway.url}/api/contact`, validBody('contact', 'oldest-1'))).status).toBe(200);
  await sleep(FIRST_JOB_AGE_MS);
  expect((await sendJson(`${pipeline.gateway.url}/api/contact`, validBody('contact', 'oldest-2'))).status).toBe(200);
  const { families } = await scrape(metrics, TOKEN);
  const oldest = sampleValue(families, 'forms_queue_oldest_waiting_seconds');
  expect(oldest).toBeGreaterThanOrEqual(FIRST_JOB_AGE_MS / 1000);
  expect(oldest).toBeLessThan(60);
  expect(sampleValue(families, 'forms_redis_memory_bytes', { kind: 'used' })).toBeGreaterThan(0);
  expect(
    families.find((f) => f.name === 'forms_redis_memory_bytes')?.metrics.some((m) => m.labels?.kind === 'maxmemory'),
  ).toBe(true);
  // Not an Airtable deployment: no CRM pause to report.
  expect(families.find((f) => f.name === 'forms_crm_paused')).toBeUndefined();
});
