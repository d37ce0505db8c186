import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, expect, inject, it } from 'vitest';
import { type OtlpReceiver, startOtlpReceiver } from '../support/otlp-receiver.ts';
import { type StartProcess, spawnStart } from '../support/spawn-start.ts';
import { validBody } from '../support/valid-bodies.ts';
import { eventually } from '../support/wait.ts';

// `OTEL_EXPORTER_OTLP_ENDPOINT=… pnpm start` traces as the split layout does: a submission is one trace
// holding the gateway's server span and the worker's attempt (consumer) under it.
// Before, the launcher never started the SDK: the one command a newcomer runs exported nothing, silently.
let receiver: OtlpReceiver;
let start: StartProcess;

beforeAll(async () => {
  receiver = await startOtlpReceiver();
  start = await spawnStart({
    REDIS_URL: inject('redisUrl'),
    QUEUE_NAME: `start-otlp-${randomUUID()}`,
    // No protocol named: the apps' default, OTLP JSON, is what the receiver takes (it answers protobuf 415).
    OTEL_EXPORTER_OTLP_ENDPOINT: receiver.url,
    OTEL_BSP_SCHEDULE_DELAY: '50',
  });
}, 120_000);
afterAll(async () => {
  await start?.stop();
  await receiver?.close();
});

it('a submission is one trace: server span and the delivery attempt under it', async () => {
  const res = await fetch(`${start.url}/api/contact`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify(validBody('contact', 'start-otlp')),
  });
  expect(res.status).toBe(200);
  const spansOf = () => {
    const server = receiver.spans.find((s) => s.name === 'POST /api/contact' && s.kind === 2);
    return server ? receiver.spans.filter((s) => s.traceId === server.traceId) : [];
  };
  await eventually(async () => spansOf().some((s) => s.name.startsWith('process ') && s.kind === 5), {
    timeoutMs: 30_000,
  });
  const trace = spansOf();
  const server = trace.find((s) => s.kind === 2)!;
  const attempt = trace.find((s) => s.name.startsWith('process ') && s.kind === 5)!;
  expect(attempt.parentSpanId).toBe(server.spanId);
  expect(attempt.attributes['submission.outcome']).toBe('delivered');
  expect(new Set(trace.map((s) => s.service))).toEqual(new Set(['forms-pipeline']));
});
