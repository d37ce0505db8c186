import { randomBytes } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { runOps } from '../support/ops-cli.ts';
import { type StartProcess, seedPglite, spawnStart } from '../support/spawn-start.ts';

// What a new user did: `pnpm start` (it makes and keeps its own ERASURE_KEY in DATA_DIR), then
// `ERASURE_KEY=<another> pnpm ops erase … --yes` (a production habit), then `pnpm start` again with the
// variable still set. The erase went through under the other key and the next start answered /readyz 200
// with deliveries ok: its worker could never find that tombstone. Now the first start records the key's
// check value in Redis; the erase under another key refuses, naming ERASURE_KEY; a start under another key
// says so in one line naming ERASURE_KEY and its /readyz is 503. A plain start afterwards is ready again.
const OTHER_KEY = randomBytes(32).toString('hex');
const NO_CONFIG = { REDIS_URL: undefined, REDIS_CLUSTER_NODES: undefined, ERASURE_KEY: undefined, ID_KEY: undefined };
let dataDir: string;
let start: StartProcess | undefined;

beforeAll(async () => {
  dataDir = mkdtempSync(join(tmpdir(), 'forms-start-rekey-'));
  await seedPglite(dataDir);
});
afterAll(async () => {
  await start?.stop();
  rmSync(dataDir, { recursive: true, force: true });
});

it('an erase under another key refuses, naming ERASURE_KEY; nothing is erased', async () => {
  start = await spawnStart({ ...NO_CONFIG, DATA_DIR: dataDir });
  const res = await fetch(`${start.url}/api/contact`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ email: 'ada@acme.io', name: 'Ada' }),
  });
  expect(res.status).toBe(200);
  // Beside the running start, as the privacy guide says, with the variable set (nothing else: DATA_DIR's
  // local settings name its Redis and bucket).
  const run = await runOps(['erase', '--email', 'ada@acme.io', '--yes'], {
    DATA_DIR: dataDir,
    REDIS_URL: '',
    S3_BUCKET: '',
    ERASURE_KEY: OTHER_KEY,
  });
  expect(run.code, run.stdout + run.stderr).toBe(2);
  expect(run.stderr).toContain('ERASURE_KEY differs');
  expect(run.stderr).not.toContain(OTHER_KEY);
  await start.stop();
  start = undefined;
}, 120_000);

it('a start under another key says so once, naming ERASURE_KEY, and its /readyz is not 200', async () => {
  start = await spawnStart({ ...NO_CONFIG, DATA_DIR: dataDir, ERASURE_KEY: OTHER_KEY });
  const lines = start
    .output()
    .split('\n')
    .filter((line) => line.includes('ERASURE_KEY differs'));
  expect(lines, start.output()).toHaveLength(1);
  expect(start.output()).not.toContain(OTHER_KEY);
  const res = await fetch(`${start.url}/readyz`);
  expect(res.status).toBe(503);
  expect((await res.json()).reason).toContain('ERASURE_KEY differs');
  await start.stop();
  start = undefined;
}, 120_000);

it('a plain start afterwards (its own key again) is ready', async () => {
  start = await spawnStart({ ...NO_CONFIG, DATA_DIR: dataDir });
  const res = await fetch(`${start.url}/readyz`);
  expect(res.status, JSON.stringify(await res.clone().json())).toBe(200);
}, 120_000);
