import { randomUUID } from 'node:crypto';
import { existsSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { openPglite } from '@forms/worker';
import { afterAll, beforeAll, expect, inject, it } from 'vitest';
import { runOps } from '../support/ops-cli.ts';
import { spawnWorker, type WorkerProcess } from '../support/spawn-app.ts';

// PGlite is one process per directory: a worker holds its DATA_DIR's PGlite, and a second opener (a second
// open in this process) is refused at once with a message naming the holder, not let in to corrupt the
// files; `ops erase` asks the running worker instead (its socket beside the PGlite folder). The lock dies with its holder: once
// the worker is SIGKILLed (it could not clean up), the directory opens again.
const dataDir = mkdtempSync(join(tmpdir(), 'pglite-lock-'));
const env = {
  REDIS_URL: inject('redisUrl'),
  QUEUE_NAME: `pglite-lock-${randomUUID()}`,
  DATA_DIR: dataDir,
  ERASURE_KEY: 'a-test-erasure-key-of-at-least-32-characters',
};
let worker: WorkerProcess;

beforeAll(async () => {
  worker = await spawnWorker(env);
});
afterAll(async () => {
  worker?.child.kill('SIGKILL');
  rmSync(dataDir, { recursive: true, force: true });
});

it('ops erase --dry-run beside a running worker goes through that worker, which holds the PGlite', async () => {
  const run = await runOps(['erase', '--email', 'ada@acme.io', '--dry-run'], env);
  expect(run.code, run.stdout + run.stderr).toBe(0);
  expect(run.stdout).toContain('dry run: would remove, for subject ');
  expect(run.stdout + run.stderr).not.toContain('ada@acme.io');
});

it('a second open in another process is refused; after the holder is killed the directory opens again', async () => {
  await expect(openPglite(join(dataDir, 'pglite'))).rejects.toThrow(`is open in process ${worker.child.pid}`);
  worker.child.kill('SIGKILL');
  await worker.exited;
  expect(existsSync(join(dataDir, 'pglite.lock'))).toBe(true);
  const db = await openPglite(join(dataDir, 'pglite'));
  try {
    expect((await db.query<{ n: number }>('select count(*)::int as n from contacts')).rows[0]!.n).toBe(0);
  } finally {
    await db.close();
  }
  expect(existsSync(join(dataDir, 'pglite.lock'))).toBe(false);
});
