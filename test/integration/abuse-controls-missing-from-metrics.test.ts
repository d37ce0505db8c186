import { HONEYPOT_FIELD } from '@forms/schemas';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { type Pipeline, startPipeline } from '../support/pipeline.ts';
import { sampleValue, scrape } from '../support/prometheus.ts';
import { validBody } from '../support/valid-bodies.ts';

// The gateway counted honeypot drops and rate-limit refusals in memory (RunningGateway.counters), and the
// The README said the metrics endpoint read them, but /admin/metrics never showed them: a flood of bots or a
// client held back by the limit left no trace for ops.
const TOKEN = 'abuse-metrics-token-for-tests-0123456789';
let pipeline: Pipeline;

beforeAll(async () => {
  pipeline = await startPipeline(
    { ADMIN_TOKEN: TOKEN, TRUST_PROXY: 'true', RATE_LIMIT_REQUESTS: '2', RATE_LIMIT_WINDOW_SECONDS: '60' },
    { withWorker: false },
  );
});
afterAll(async () => {
  await pipeline?.stop();
});

function send(body: unknown, client: string) {
  return fetch(`${pipeline.gateway.url}/api/contact`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', 'x-forwarded-for': client },
    body: JSON.stringify(body),
  });
}

it('honeypot drops and rate-limit refusals are counters in /admin/metrics, by reason', async () => {
  const metrics = `${pipeline.gateway.url}/admin/metrics`;
  const turnedAway = 'forms_submissions_turned_away_total';
  const filled = { ...validBody('contact', `bot-${Date.now()}`), [HONEYPOT_FIELD]: 'https://spam.example' };
  expect((await send(filled, '192.0.2.1')).status).toBe(200);
  expect((await send(filled, '192.0.2.2')).status).toBe(200);
  const statuses = [];
  for (let i = 0; i < 4; i++)
    statuses.push((await send(validBody('contact', `rl-${i}-${Date.now()}`), '198.51.100.9')).status);
  expect(statuses).toEqual([200, 200, 429, 429]);

  const { families } = await scrape(metrics, TOKEN);
  expect(families.find((f) => f.name === turnedAway)?.type).toBe('COUNTER');
  expect(sampleValue(families, turnedAway, { reason: 'honeypot' })).toBe(2);
  expect(sampleValue(families, turnedAway, { reason: 'rate_limited' })).toBe(2);
  expect(pipeline.gateway.counters).toEqual({ honeypotQuarantined: 2, rateLimited: 2 });
  // Neither a bot's submission nor a refused one reached the queue.
  expect(await pipeline.queue.getWaitingCount()).toBe(2);
});
