import { randomBytes, randomUUID } from 'node:crypto';
import { Queue } from 'bullmq';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { openTestDatabase, sharedPostgresUrl, type TestDatabase } from '../support/crm-database.ts';
import { type OtlpReceiver, startOtlpReceiver } from '../support/otlp-receiver.ts';
import { type GatewayProcess, spawnGateway, spawnWorker, type WorkerProcess } from '../support/spawn-app.ts';
import { validBody } from '../support/valid-bodies.ts';
import { eventually } from '../support/wait.ts';

// A gateway that samples nothing of its own (ratio 0) and a worker that samples every root trace: a job must
// carry its request's "sampled out" to the worker, whose parent-based sampler then records nothing for it. A
// job that carried no trace context would start a root trace at the worker, sampled, and be exported. One
// request comes with a sampled W3C `traceparent`: its spans arriving shows the exporters work, so nothing
// else having arrived by then is an answer, not a wait that ran out.
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
    spawnGateway({ ...common, OTEL_TRACES_SAMPLER: 'parentbased_traceidratio', OTEL_TRACES_SAMPLER_ARG: '0' }),
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

describe('a submission whose trace is sampled out', () => {
  it('leaves no spans at the worker either, while a sampled one is exported whole', async () => {
    for (let i = 0; i < 3; i++) await submit(`out${i}-${randomUUID().slice(0, 6)}`);
    await eventually(async () => (await completed()) === 3);
    const traceId = randomBytes(16).toString('hex');
    await submit(`in-${randomUUID().slice(0, 6)}`, `00-${traceId}-${randomBytes(8).toString('hex')}-01`);
    await eventually(async () => (await completed()) === 4);
    // The sampled submission's worker spans arrive after the sampled-out jobs had finished.
    await eventually(async () => receiver.spans.some((s) => s.traceId === traceId && s.service === 'forms-worker'));
    const others = receiver.spans.filter((s) => s.traceId !== traceId);
    expect(others.map((s) => `${s.service} ${s.name}`)).toEqual([]);
  });
});
