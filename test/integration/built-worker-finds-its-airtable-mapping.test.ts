import { execFileSync } from 'node:child_process';
import { tmpdir } from 'node:os';
import { afterAll, beforeAll, expect, inject, it } from 'vitest';
import { type FakeAirtable, startFakeAirtable } from '../support/airtable-server.ts';
import { airtableWorkerEnv } from '../support/airtable-worker.ts';
import { acknowledgedIds, submitAtRate } from '../support/load.ts';
import { REPO_ROOT, spawnApp } from '../support/spawn-app.ts';
import { startTestGateway, type TestGateway } from '../support/test-gateway.ts';
import { eventually } from '../support/wait.ts';

// The production start of docs/getting-started.md#in-production, `node apps/worker/dist/main.js`, exited at once with Airtable configured:
// the bundle looked for the shipped mapping beside the repository, not in apps/worker/.
const BASE = `appBuilt${Date.now().toString(36)}`;
const KEY = 'patBuilt';
let server: FakeAirtable;
let gateway: TestGateway;

beforeAll(async () => {
  execFileSync('pnpm', ['--filter', '@forms/worker', 'build'], { cwd: REPO_ROOT, stdio: 'ignore' });
  server = await startFakeAirtable({ apiKey: KEY });
  // All load comes from 127.0.0.1, one client: the per-client limit is for the open internet, not this test.
  gateway = await startTestGateway(inject('redisUrl'), { RATE_LIMIT_REQUESTS: '0' }, { keepQueue: true });
});
afterAll(async () => {
  await gateway?.stop();
  await server?.close();
});

it('built-worker-cannot-read-its-mapping: started as the guide says, from another directory, it delivers', async () => {
  const worker = await spawnApp(
    'worker',
    airtableWorkerEnv(server, { apiKey: KEY, baseId: BASE, queueName: gateway.queueName }),
    {
      entry: 'apps/worker/dist/main.js',
      cwd: tmpdir(),
      inheritEnv: false,
    },
  );
  try {
    const acknowledged = acknowledgedIds(await submitAtRate(gateway.url, { perSecond: 10, durationMs: 300 }));
    expect(acknowledged.size).toBe(3);
    await eventually(async () => server.records(BASE, 'Creators').length === 3, { timeoutMs: 20_000 });
  } finally {
    worker.child.kill('SIGTERM');
  }
  expect(await worker.exited).toBe(0);
});
