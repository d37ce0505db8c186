import { randomUUID } from 'node:crypto';
import { freePort } from '@forms/local-services';
import { Queue } from 'bullmq';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { openTestDatabase, sharedPostgresUrl, type TestDatabase } from '../support/crm-database.ts';
import { acknowledgedIds, sendCreatorsUnderLoad } from '../support/load.ts';
import { type OtlpReceiver, startOtlpReceiver } from '../support/otlp-receiver.ts';
import { type GatewayProcess, spawnGateway, spawnWorker, type WorkerProcess } from '../support/spawn-app.ts';
import { eventually } from '../support/wait.ts';

// Tracing on, and the collector unusable: first nothing listens on its port (connection refused), then a
// collector there takes every export request and never answers. Submissions must not notice: each is
// acknowledged and delivered, both apps keep running and stop cleanly, and they do not log per span or
// per failed export (the SDK's export errors go to its diagnostic logger, which is off).
const queueName = `otlp-down-${randomUUID()}`;
let store: TestDatabase;
let queue: Queue;
let hanging: OtlpReceiver | undefined;
let gateway: GatewayProcess | undefined;
let worker: WorkerProcess | undefined;

beforeAll(async () => {
  store = await openTestDatabase({ shareable: true, adminUrl: await sharedPostgresUrl() });
  queue = new Queue(queueName, { connection: { url: inject('redisUrl') } });
});
afterAll(async () => {
  for (const app of [gateway, worker]) if (app?.child.exitCode === null) app.child.kill('SIGKILL');
  await hanging?.close();
  await queue?.obliterate({ force: true });
  await queue?.close();
  await store?.close();
});

describe('the trace collector down', () => {
  it('refused, then hanging: every submission acknowledged and delivered, apps up and quiet', async () => {
    const port = await freePort();
    const env = {
      REDIS_URL: inject('redisUrl'),
      QUEUE_NAME: queueName,
      RATE_LIMIT_REQUESTS: '0',
      OTEL_EXPORTER_OTLP_ENDPOINT: `http://127.0.0.1:${port}`,
      OTEL_EXPORTER_OTLP_PROTOCOL: 'http/json',
      OTEL_BSP_SCHEDULE_DELAY: '50',
    };
    [gateway, worker] = await Promise.all([spawnGateway(env), spawnWorker({ ...env, ...store.workerEnv })]);
    const url = gateway.url;
    const send = (tag: string) =>
      sendCreatorsUnderLoad(() => url, { lanes: 10, max: 300, until: () => false, tag: `${tag}-${randomUUID()}` });

    const refused = await send('refused');
    hanging = await startOtlpReceiver({ port });
    hanging.hang();
    const hung = await send('hanging');
    // The exporters did reach the hanging collector: spans were being sent, and nobody answered.
    await eventually(async () => hanging!.requests >= 2, { timeoutMs: 10_000 });

    const sent = [...refused, ...hung];
    expect(sent.filter((s) => s.status !== 200)).toEqual([]);
    const acknowledged = acknowledgedIds(sent);
    expect(acknowledged.size).toBe(600);
    await eventually(async () => (await queue.getCompletedCount()) === acknowledged.size, { timeoutMs: 60_000 });
    expect(gateway.child.exitCode).toBeNull();
    expect(worker.child.exitCode).toBeNull();

    // A clean stop, though the collector still hangs: the last export is bounded.
    for (const app of [gateway, worker]) {
      const started = Date.now();
      app.child.kill('SIGTERM');
      expect(await app.exited).toBe(0);
      expect(Date.now() - started).toBeLessThan(8_000);
    }
    const db = await store.read();
    const { rows } = await db.query<{ id: string }>('SELECT id FROM submissions');
    expect(new Set(rows.map((r) => r.id))).toEqual(acknowledged);

    // Start-up, readiness and stop lines only: nothing per span, per request or per failed export.
    const lines = (output: string) => output.split('\n').filter((line) => line.trim() !== '').length;
    const logged = { gateway: lines(gateway.output()), worker: lines(worker.output()) };
    console.log(
      `${acknowledged.size} acknowledged and delivered; ${hanging.requests} export requests held; log lines ${JSON.stringify(logged)}`,
    );
    expect(logged.gateway).toBeLessThan(25);
    expect(logged.worker).toBeLessThan(25);
  }, 180_000);
});
