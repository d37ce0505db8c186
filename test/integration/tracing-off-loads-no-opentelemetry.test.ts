import { randomUUID } from 'node:crypto';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { Queue } from 'bullmq';
import { afterAll, describe, expect, inject, it } from 'vitest';
import { openTestDatabase, type TestDatabase } from '../support/crm-database.ts';
import { type GatewayProcess, spawnGateway, spawnWorker, type WorkerProcess } from '../support/spawn-app.ts';
import { validBody } from '../support/valid-bodies.ts';
import { eventually } from '../support/wait.ts';

// With no OTLP endpoint, tracing costs nothing because nothing of it is loaded: the gateway and the worker,
// having taken and delivered a submission, loaded neither the SDK, an exporter, an instrumentation nor
// bullmq-otel. One OpenTelemetry module was loaded before tracing existed and still is: prom-client 15's
// default process metrics require @opentelemetry/api (for exemplars); with no SDK registered it is the
// API's no-op. The same recorder sees the SDK in a gateway given an endpoint, so it is not blind.
const RECORDER = fileURLToPath(new URL('../support/record-module-loads.mjs', import.meta.url));
/** Tracing's own modules: any OpenTelemetry package but the API, and bullmq-otel. */
const TRACING = /@opentelemetry[/+](?!api(?:[/@ ]|$))|node_modules\/bullmq-otel\/|^require bullmq-otel/;
/** Who asked for the API: only prom-client may. */
const API_REQUESTER = /^require @opentelemetry\/api from (.*)$/;
const dir = mkdtempSync(join(tmpdir(), 'module-loads-'));
const queueName = `otel-off-${randomUUID()}`;
const apps: (GatewayProcess | WorkerProcess)[] = [];
let store: TestDatabase | undefined;
let queue: Queue | undefined;

afterAll(async () => {
  for (const app of apps) if (app.child.exitCode === null) app.child.kill('SIGKILL');
  await queue?.obliterate({ force: true });
  await queue?.close();
  await store?.close();
  rmSync(dir, { recursive: true, force: true });
});

/** The env that preloads the recorder, writing to `name` in the test's folder. */
function recorded(name: string): Record<string, string> {
  return { NODE_OPTIONS: `--import=${RECORDER}`, MODULE_LOAD_LOG: join(dir, name) };
}
const loaded = (name: string) => readFileSync(join(dir, name), 'utf8').split('\n').filter(Boolean);

describe('tracing off', () => {
  it('loads no OpenTelemetry module in the gateway or the worker, through a delivered submission', async () => {
    store = await openTestDatabase({ shareable: true });
    queue = new Queue(queueName, { connection: { url: inject('redisUrl') } });
    // Whatever the test runner's environment says: no endpoint.
    const off = { OTEL_EXPORTER_OTLP_ENDPOINT: '', OTEL_EXPORTER_OTLP_TRACES_ENDPOINT: '' };
    const env = { REDIS_URL: inject('redisUrl'), QUEUE_NAME: queueName, ...off };
    const [gateway, worker] = await Promise.all([
      spawnGateway({ ...env, ...recorded('gateway') }),
      spawnWorker({ ...env, ...store.workerEnv, ...recorded('worker') }),
    ]);
    apps.push(gateway, worker);
    const res = await fetch(`${gateway.url}/api/contact`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify(validBody('contact', `off${randomUUID().slice(0, 8)}`)),
    });
    expect(res.status).toBe(200);
    await eventually(async () => (await queue!.getCompletedCount()) === 1, { timeoutMs: 20_000 });

    for (const name of ['gateway', 'worker']) {
      const modules = loaded(name);
      // The recorder saw the app's own stack being loaded…
      expect(modules.some((m) => m.includes('/bullmq/'))).toBe(true);
      // …and nothing of tracing; the API only for prom-client.
      expect(modules.filter((m) => TRACING.test(m))).toEqual([]);
      const requesters = modules.flatMap((m) => API_REQUESTER.exec(m)?.[1] ?? []);
      expect(requesters.filter((file) => !file.includes('/node_modules/prom-client/'))).toEqual([]);
    }
  }, 120_000);

  it('the same recorder sees the SDK load when an endpoint is set', async () => {
    const gateway = await spawnGateway({
      REDIS_URL: inject('redisUrl'),
      QUEUE_NAME: queueName,
      OTEL_EXPORTER_OTLP_ENDPOINT: 'http://127.0.0.1:9',
      ...recorded('gateway-traced'),
    });
    apps.push(gateway);
    const modules = loaded('gateway-traced').filter((m) => TRACING.test(m));
    expect(modules.some((m) => m.includes('@opentelemetry/sdk-node'))).toBe(true);
    expect(modules.some((m) => m.includes('bullmq-otel'))).toBe(true);
  }, 60_000);
});
