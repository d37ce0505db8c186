import { spawn } from 'node:child_process';
import { once } from 'node:events';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { freePort } from '@forms/local-services';
import { afterAll, expect, inject, it } from 'vitest';
import { REPO_ROOT } from '../support/spawn-app.ts';
import { eventually } from '../support/wait.ts';

/**
 * `pnpm start`'s launcher on the Node that runs this test (CI runs this file on Node 24 with the suite, and
 * again on Node 22), on the embedded CRM: it starts, the gateway answers, the worker delivers one
 * submission, SIGTERM drains and exits 0, and nothing but the app's own log was printed: on Node 20 the
 * AWS SDK printed a ten-line NodeVersionSupportWarning at every start, which a newcomer reads as a broken
 * install. Any warning from any library (the SDK's, a DeprecationWarning, an ExperimentalWarning) fails it.
 */
const dataDir = await mkdtemp(join(tmpdir(), 'forms-start-'));
afterAll(() => rm(dataDir, { recursive: true, force: true }));

it(`starts, delivers and stops on Node ${process.versions.node} with no library warning`, async () => {
  const port = await freePort();
  const child = spawn(process.execPath, ['--import', 'tsx', 'scripts/start.ts'], {
    cwd: REPO_ROOT,
    env: {
      ...process.env,
      DATABASE_URL: '',
      REDIS_URL: inject('redisUrl'),
      QUEUE_NAME: `start-${port}`,
      DATA_DIR: dataDir,
      PORT: String(port),
      LOG_LEVEL: 'debug',
    },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let stdout = '';
  let stderr = '';
  child.stdout.on('data', (d) => (stdout += d));
  child.stderr.on('data', (d) => (stderr += d));
  const exited = once(child, 'exit');
  try {
    await eventually(async () => stdout.includes('listening on') || child.exitCode !== null, { timeoutMs: 60_000 });
    expect(stdout, stderr).toContain('listening on');
    const ready = await fetch(`http://127.0.0.1:${port}/readyz`);
    expect(ready.status).toBe(200);
    const answer = await fetch(`http://127.0.0.1:${port}/api/contact`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ email: 'ada@acme.io', name: 'Ada' }),
    });
    expect(answer.status).toBe(200);
    const { recordId } = (await answer.json()) as { recordId: string };
    // The worker's debug line for a completed job names the CRM record, which is the contact's id.
    await eventually(async () => stdout.split('\n').some((l) => l.includes('"delivered"') && l.includes(recordId)), {
      timeoutMs: 30_000,
    });
  } finally {
    child.kill('SIGTERM');
  }
  const [code] = await exited;
  expect(code).toBe(0);
  expect(stderr).toBe('');
  expect(stdout).not.toMatch(/Warning|NodeVersionSupport/);
});
