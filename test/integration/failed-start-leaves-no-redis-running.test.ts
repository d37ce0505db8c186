import { mkdirSync, mkdtempSync, realpathSync, rmSync, writeFileSync } from 'node:fs';
import { createServer, type Server } from 'node:net';
import { hostname, tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, expect, it } from 'vitest';
import { redisServersIn, seedPglite, spawnStart } from '../support/spawn-start.ts';
import { eventually } from '../support/wait.ts';

// Issue 49.1: with port 3150 taken, `PORT=3150 pnpm start` printed Node's stack trace for EADDRINUSE, exited
// 1 and left its redis-server running (parent PID 1, working folder DATA_DIR/redis); the next start ran a
// second one on the same files. The launcher's Redis is its own process group (so a Ctrl-C reaches the
// launcher first), so nothing stopped it when the launcher died of anything but a signal. Every way out of a
// start that fails now stops what it started, and says why in one line.

const NO_REDIS_CONFIGURED = { REDIS_URL: undefined, REDIS_CLUSTER_NODES: undefined };
let dataDir: string;
let taken: Server | undefined;

/** A data folder of the test's own (the failures under test happen before `spawnStart` could report one). */
async function newDataDir(): Promise<string> {
  dataDir = realpathSync(mkdtempSync(join(tmpdir(), 'failed-start-')));
  await seedPglite(dataDir);
  return dataDir;
}

afterEach(async () => {
  taken?.close();
  taken = undefined;
  // A Redis a failing start left behind would outlive the test: stop it (it is this test's, in its folder).
  for (const pid of redisServersIn(join(dataDir, 'redis'))) process.kill(pid, 'SIGKILL');
  rmSync(dataDir, { recursive: true, force: true });
});

/** Runs `pnpm start`'s launcher, expecting it to fail: its exit code and what it printed. */
async function failedStart(env: Record<string, string | undefined>): Promise<{ code: number; output: string }> {
  const error = await spawnStart({ ...NO_REDIS_CONFIGURED, ...env, DATA_DIR: dataDir }).then(
    async (start) => {
      await start.stop();
      throw new Error(`it started:\n${start.output()}`);
    },
    (err: Error) => err.message,
  );
  const [, code, output] = /did not start \(exit code (\d+)\):\n([\s\S]*)$/.exec(error) ?? [];
  expect(code, error).toBeDefined();
  return { code: Number(code), output: output! };
}

/** The lines at level error (50) or fatal (60), and any line that is not the logger's JSON (a stack trace). */
function complaints(output: string): string[] {
  return output
    .split('\n')
    .filter((line) => line.trim() !== '')
    .filter((line) => !line.startsWith('{') || JSON.parse(line).level >= 50);
}

it('a taken port: one line naming the port and PORT, exit 1, no Redis left running', async () => {
  await newDataDir();
  taken = createServer();
  await new Promise<void>((resolve) => taken!.listen(0, '127.0.0.1', resolve));
  const port = (taken.address() as { port: number }).port;
  const { code, output } = await failedStart({ PORT: String(port) });
  expect(code).toBe(1);
  expect(output).toContain('started a local redis-server');
  const said = complaints(output);
  expect(said, output).toHaveLength(1);
  expect(JSON.parse(said[0]!).msg).toMatch(new RegExp(`\\bport ${port}\\b.*\\bPORT\\b`));
  expect(redisServersIn(join(dataDir, 'redis'))).toEqual([]);
}, 120_000);

it('a bad variable read after Redis started: one line naming it, exit 1, no Redis left running', async () => {
  await newDataDir();
  const { code, output } = await failedStart({ PORT: 'eighty' });
  expect(code).toBe(1);
  const said = complaints(output);
  expect(said, output).toHaveLength(1);
  expect(JSON.parse(said[0]!).msg).toMatch(/\bPORT\b/);
  expect(redisServersIn(join(dataDir, 'redis'))).toEqual([]);
}, 120_000);

it('a crash at start (the CRM folder held by another process): exit 1, no Redis left running', async () => {
  await newDataDir();
  // As a running `ops erase` holds it: a live pid on this host (this test's own).
  const holder = { pid: process.pid, host: hostname(), command: 'ops erase', since: new Date().toISOString() };
  writeFileSync(join(dataDir, 'pglite.lock'), `${JSON.stringify(holder)}\n`);
  const { code, output } = await failedStart({});
  expect(code).toBe(1);
  expect(output).toContain('started a local redis-server');
  const said = complaints(output);
  expect(said, output).toHaveLength(1);
  expect(JSON.parse(said[0]!).msg).toContain('is open in process');
  expect(redisServersIn(join(dataDir, 'redis'))).toEqual([]);
}, 120_000);

it('a Ctrl-C while it starts: exit 0, no Redis left running', async () => {
  await newDataDir();
  mkdirSync(join(dataDir, 'redis'), { recursive: true });
  const start = await spawnStart({ ...NO_REDIS_CONFIGURED, DATA_DIR: dataDir }, { readyOn: 'redis' });
  expect(redisServersIn(join(dataDir, 'redis'))).toHaveLength(1);
  start.signal('SIGINT');
  expect(await start.exited, start.output()).toEqual({ code: 0, signal: null });
  await eventually(async () => redisServersIn(join(dataDir, 'redis')).length === 0, { timeoutMs: 10_000 });
}, 120_000);
