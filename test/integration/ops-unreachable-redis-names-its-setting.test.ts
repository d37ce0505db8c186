import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { freePort } from '@forms/local-services';
import { afterEach, beforeEach, expect, it } from 'vitest';
import { runOps } from '../support/ops-cli.ts';

// Issue 49.3: `pnpm ops failed` with no `pnpm start` running said only `error: could not reach Redis at
// redis://127.0.0.1:26463: Connection is closed.`, the port of a stopped start, from its local.json, with no
// word of where that address came from or what to do. It now says which Redis it tried, which setting named
// it, and the next step for that setting.
let dataDir: string;
beforeEach(() => {
  dataDir = mkdtempSync(join(tmpdir(), 'ops-no-start-'));
});
afterEach(() => rmSync(dataDir, { recursive: true, force: true }));

const NO_REDIS_SET = { REDIS_URL: undefined, REDIS_CLUSTER_NODES: undefined };

it('names the local.json of a stopped pnpm start, and says to start it or set REDIS_URL', async () => {
  const url = `redis://127.0.0.1:${await freePort()}`; // nothing listens there: the start has stopped
  writeFileSync(join(dataDir, 'local.json'), JSON.stringify({ REDIS_URL: url }));
  const run = await runOps(['failed'], { ...NO_REDIS_SET, DATA_DIR: dataDir });
  expect(run.code).toBe(1);
  expect(run.stderr).toContain(`could not reach Redis at ${url} `);
  expect(run.stderr).toContain(`(from ${join(dataDir, 'local.json')}, written by the last \`pnpm start\` here)`);
  expect(run.stderr).toContain('`pnpm start` is not running: start it (in another terminal), or set REDIS_URL');
});

it('names REDIS_URL when that chose the Redis', async () => {
  const url = `redis://127.0.0.1:${await freePort()}`;
  writeFileSync(join(dataDir, 'local.json'), JSON.stringify({ REDIS_URL: 'redis://127.0.0.1:1' }));
  const run = await runOps(['failed'], { ...NO_REDIS_SET, REDIS_URL: url, DATA_DIR: dataDir });
  expect(run.code).toBe(1);
  expect(run.stderr).toContain(`could not reach Redis at ${url} (from REDIS_URL)`);
  expect(run.stderr).toContain("check that this Redis runs and that REDIS_URL names the apps' Redis");
});
