import { randomBytes, randomUUID } from 'node:crypto';
import { Queue } from 'bullmq';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { openTestDatabase, sharedPostgresUrl, type TestDatabase } from '../support/crm-database.ts';
import { type OtlpReceiver, type ReceivedSpan, startOtlpReceiver } from '../support/otlp-receiver.ts';
import { type GatewayProcess, spawnGateway, spawnWorker, type WorkerProcess } from '../support/spawn-app.ts';
import { validBody } from '../support/valid-bodies.ts';
import { eventually } from '../support/wait.ts';

// A gateway that samples half of its new traces and a worker that samples every root trace. The gateway decides
// a new trace before the SDK sees it, and a request it samples out never enters the SDK: that request's job
// must still carry "sampled out" to the worker, whose parent-based sampler then records nothing for it (a
// job that carried no trace context would start a root trace at the worker, sampled, and be exported), and
// nothing under the request may start a trace of its own. A request it samples is traced whole, once: the
// SDK must not draw again. One last request comes with a sampled W3C `traceparent`: its worker spans arriving
// shows the exporters have sent everything before it, so what has arrived by then is an answer, not a wait
// that ran out.
const queueName = `sampled-out-${randomUUID()}`;
let receiver: OtlpReceiver;
let store: TestDatabase;
let gateway: GatewayProcess;
let worker: WorkerProcess;
let queue: Queue;

beforeAll(async () => {
  receiver = await startOtlpReceiver();
  store = await openTestDatabase({ shareable: true, adminUrl: await sharedPostgresUrl() });
  const common = {
    REDIS_URL: inject('redisUrl'),
    QUEUE_NAME: queueName,
    RATE_LIMIT_REQUESTS: '0',
    OTEL_EXPORTER_OTLP_ENDPOINT: receiver.url,
    OTEL_EXPORTER_OTLP_PROTOCOL: 'http/json',
    OTEL_BSP_SCHEDULE_DELAY: '50',
  };
  [gateway, worker] = await Promise.all([
    spawnGateway({ ...common, OTEL_TRACES_SAMPLER: 'parentbased_traceidratio', OTEL_TRACES_SAMPLER_ARG: '0.5' }),
    spawnWorker({ ...common, ...store.workerEnv, OTEL_TRACES_SAMPLER: 'parentbased_always_on' }),
  ]);
  queue = new Queue(queueName, { connection: { url: inject('redisUrl') } });
}, 120_000);

afterAll(async () => {
  for (const child of [gateway, worker]) if (child?.child.exitCode === null) child.child.kill('SIGKILL');
  await queue?.obliterate({ force: true }).catch(() => {});
  await queue?.close();
  await store?.close();
  await receiver?.close();
});

async function submit(tag: string, traceparent?: string): Promise<void> {
  const res = await fetch(`${gateway.url}/api/cpa-signup`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', ...(traceparent ? { traceparent } : {}) },
    body: JSON.stringify(validBody('cpa-signup', tag)),
  });
  expect(res.status).toBe(200);
}
const completed = async () => (await queue.getJobCounts('completed')).completed;

const SUBMISSIONS = 40;

describe('a submission whose trace is sampled out', () => {
  it('leaves no spans at the worker either, while a sampled one is exported whole', async () => {
    for (let i = 0; i < SUBMISSIONS; i++) await submit(`out${i}-${randomUUID().slice(0, 6)}`);
    await eventually(async () => (await completed()) === SUBMISSIONS);
    const traceId = randomBytes(16).toString('hex');
    await submit(`in-${randomUUID().slice(0, 6)}`, `00-${traceId}-${randomBytes(8).toString('hex')}-01`);
    await eventually(async () => (await completed()) === SUBMISSIONS + 1);
    // The sampled submission's worker spans arrive after the other jobs had finished.
    await eventually(async () => receiver.spans.some((s) => s.traceId === traceId && s.service === 'forms-worker'));
    const traces = new Map<string, ReceivedSpan[]>();
    for (const span of receiver.spans.filter((s) => s.traceId !== traceId)) {
      traces.set(span.traceId, [...(traces.get(span.traceId) ?? []), span]);
    }
    // Each trace is one whole submission: the gateway's server span, the worker's attempt and CRM write. A
    // trace without the server span was started under a request that had been sampled out.
    for (const spans of traces.values()) {
      expect(spans.map((s) => `${s.service} ${s.name}`)).toEqual(
        expect.arrayContaining([
          'forms-gateway POST /api/cpa-signup',
          `forms-worker process ${queueName}`,
          'forms-worker crm.write',
        ]),
      );
      expect(spans.filter((s) => s.service === 'forms-gateway' && !s.parentSpanId)).toHaveLength(1);
    }
    // Some were sampled and some were not: none or all of 40 has a chance of 2e-12 at 0.5.
    expect(traces.size).toBeGreaterThan(0);
    expect(traces.size).toBeLessThan(SUBMISSIONS);
  });
});
