import { execFileSync, spawn } from 'node:child_process';
import { once } from 'node:events';
import { tmpdir } from 'node:os';
import { fileURLToPath } from 'node:url';
import type { RunningGateway } from '@forms/gateway';
import { afterAll, beforeAll, expect, inject, it } from 'vitest';
import { startDrainGateway, submitAtRate } from '../support/airtable-drain.ts';
import { type FakeAirtable, startFakeAirtable } from '../support/airtable-server.ts';
import { airtableWorkerEnv } from '../support/airtable-worker.ts';
import { eventually } from '../support/crm-database.ts';

// The README's production start, `node apps/worker/dist/main.js`, exited at once with Airtable configured:
// the bundle looked for the shipped mapping beside the repository, not in apps/worker/.
const REPO_ROOT = fileURLToPath(new URL('../../', import.meta.url));
const BASE = `appBuilt${Date.now().toString(36)}`;
const KEY = 'patBuilt';
let server: FakeAirtable;
let gateway: RunningGateway;
let queueName: string;

beforeAll(async () => {
  execFileSync('pnpm', ['--filter', '@forms/worker', 'build'], { cwd: REPO_ROOT, stdio: 'ignore' });
  server = await startFakeAirtable({ apiKey: KEY });
  ({ gateway, queueName } = await startDrainGateway(inject('redisUrl')));
});
afterAll(async () => {
  await gateway?.stop();
  await server?.close();
});

it('built-worker-cannot-read-its-mapping: started as the README says, from another directory, it delivers', async () => {
  const child = spawn(process.execPath, [`${REPO_ROOT}apps/worker/dist/main.js`], {
    cwd: tmpdir(),
    env: {
      PATH: process.env.PATH,
      LOG_LEVEL: 'info',
      ...airtableWorkerEnv(server, { apiKey: KEY, baseId: BASE, queueName }),
    },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let output = '';
  child.stdout.on('data', (d) => (output += d));
  child.stderr.on('data', (d) => (output += d));
  const exited = once(child, 'exit');
  try {
    await eventually(async () => output.includes('worker consuming') || child.exitCode !== null, {
      timeoutMs: 20_000,
      everyMs: 50,
    });
    expect(child.exitCode, output).toBeNull();
    const acknowledged = await submitAtRate(gateway.url, { perSecond: 10, durationMs: 300 });
    expect(acknowledged.size).toBe(3);
    await eventually(async () => server.records(BASE, 'Creators').length === 3, { timeoutMs: 20_000 });
  } finally {
    child.kill('SIGTERM');
    await exited;
  }
  expect(child.exitCode).toBe(0);
});
