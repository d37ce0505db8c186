import { type ChildProcess, spawn } from 'node:child_process';
import { once } from 'node:events';
import { cpSync, existsSync, mkdtempSync, readdirSync, readFileSync, readlinkSync, renameSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { REPO_ROOT } from './spawn-app.ts';
import { sleep } from './wait.ts';

export type StartProcess = {
  child: ChildProcess;
  /** stdout and stderr as they came; `stderr` alone. */
  output: () => string;
  stderr: () => string;
  /** Its DATA_DIR: a folder of its own unless `env` named one. */
  dataDir: string;
  exited: Promise<{ code: number | null; signal: NodeJS.Signals | null }>;
  /** The gateway's URL, from the launcher's "listening on" line (with `readyOn: 'redis'`, its Redis's URL). */
  url: string;
  /** Sends `signal` to the whole process group, as a terminal's Ctrl-C does. */
  signal: (signal: NodeJS.Signals) => void;
  /** SIGTERM unless it has exited, waits for the exit, and removes the data folder it made. */
  stop: () => Promise<void>;
};

/**
 * Runs `pnpm start` (`via: 'pnpm'`) or scripts/start.ts itself (`via: 'node'`, on the Node running the
 * test) in its own process group with `env` added to ours (a key set to undefined is left out), and
 * resolves once the gateway logs "listening on" (bounded), or for the demo once its site is up, or once the
 * launcher has started its own Redis (`readyOn`: `redis`, the start still under way).
 * Its DATA_DIR is a new folder unless `env` names one, holding a PGlite made once (`pgliteTemplate`) unless
 * `firstStart`.
 */
export async function spawnStart(
  env: Record<string, string | undefined>,
  {
    via = 'node',
    script = 'start',
    readyOn = script === 'demo' ? 'site' : 'gateway',
    firstStart = false,
    core,
  }: {
    via?: 'node' | 'pnpm';
    script?: 'start' | 'demo';
    readyOn?: 'gateway' | 'site' | 'redis';
    /** Its own DATA_DIR left empty, as a newcomer's first start finds it (PGlite's initdb included). */
    firstStart?: boolean;
    /** Every thread of it on this CPU (`taskset`): V8's compiler threads then share it with its main thread. */
    core?: number;
  } = {},
): Promise<StartProcess> {
  // As a terminal runs it: without the variables the pnpm running this test set for its children (one of
  // them, pnpm_config_verify_deps_before_run, makes a nested pnpm check `engines` against the Node it runs
  // on rather than the project's `nodeVersion`, and warn).
  const inherited = Object.fromEntries(
    Object.entries(process.env).filter(([name]) => name !== 'DATABASE_URL' && !/^(npm|pnpm)_/i.test(name)),
  );
  const ownDir = env.DATA_DIR === undefined ? mkdtempSync(join(tmpdir(), 'forms-start-')) : undefined;
  const dataDir = env.DATA_DIR ?? ownDir!;
  if (ownDir && !firstStart && !env.DATABASE_URL) await seedPglite(ownDir);
  const [program, programArgs] =
    via === 'pnpm' ? ['pnpm', [script]] : [process.execPath, [`${REPO_ROOT}scripts/start.ts`]];
  const [command, args] =
    core === undefined ? [program, programArgs] : ['taskset', ['-c', String(core), program, ...programArgs]];
  // As a terminal runs it: without this run's node_modules/.bin on PATH (pnpm puts it there itself).
  const PATH = (process.env.PATH ?? '')
    .split(':')
    .filter((dir) => !dir.endsWith('node_modules/.bin'))
    .join(':');
  const child = spawn(command, args as string[], {
    cwd: REPO_ROOT,
    env: Object.fromEntries(
      Object.entries({ ...inherited, PATH, LOG_LEVEL: 'info', PORT: '0', ...env, DATA_DIR: dataDir }).filter(
        ([, value]) => value !== undefined,
      ),
    ),
    stdio: ['ignore', 'pipe', 'pipe'],
    detached: true,
  });
  let output = '';
  let stderr = '';
  child.stdout!.on('data', (d) => (output += d));
  child.stderr!.on('data', (d) => {
    output += d;
    stderr += d;
  });
  const exited = once(child, 'exit').then(([code, signal]) => ({
    code: code as number | null,
    signal: signal as NodeJS.Signals | null,
  }));
  const ready = {
    site: /demo site: \S+ {2}\(gateway: (\S+)\)/,
    gateway: /listening on (http:\/\/\S+)/,
    redis: /"url":"(redis:\/\/[^"]+)"[^\n]*"msg":"started a local redis-server/,
  }[readyOn];
  const deadline = Date.now() + 90_000;
  for (;;) {
    if (ready.test(output)) break;
    if (child.exitCode !== null || Date.now() > deadline) {
      if (child.exitCode === null) process.kill(-child.pid!, 'SIGKILL');
      if (ownDir) rmSync(ownDir, { recursive: true, force: true });
      throw new Error(`${via} ${script} did not start (exit code ${child.exitCode}):\n${output}`);
    }
    await sleep(100);
  }
  const signal = (name: NodeJS.Signals) => process.kill(-child.pid!, name);
  return {
    child,
    output: () => output,
    stderr: () => stderr,
    dataDir,
    exited,
    url: ready.exec(output)![1]!,
    signal,
    async stop() {
      if (child.exitCode === null && child.signalCode === null) signal('SIGTERM');
      await exited;
      if (ownDir) rmSync(ownDir, { recursive: true, force: true });
    },
  };
}

/**
 * Puts in `dataDir` the PGlite folder `pnpm start` opens (DATA_DIR/pglite) as its first open leaves it
 * (initdb: about 5 s of CPU, on a core the other tests share), made once per PGlite version on this machine
 * and copied (40 ms): the starts here test signals, addresses and what is printed, not a first start, which
 * `firstStart` keeps.
 */
export async function seedPglite(dataDir: string): Promise<void> {
  cpSync(await pgliteTemplate(), join(dataDir, 'pglite'), { recursive: true });
}

async function pgliteTemplate(): Promise<string> {
  const manifest = join(REPO_ROOT, 'apps/worker/node_modules/@electric-sql/pglite/package.json');
  const { version } = JSON.parse(readFileSync(manifest, 'utf8'));
  const template = join(tmpdir(), `forms-pglite-template-${version}`);
  if (existsSync(template)) return template;
  const making = `${template}.${process.pid}`;
  // Loaded only to make the template, once per machine: a test that starts the pipeline imports nothing of it.
  const { openPglite } = await import('@forms/worker');
  await (await openPglite(making)).close();
  try {
    renameSync(making, template);
  } catch {
    // Another test process made it first: theirs is the same.
    rmSync(making, { recursive: true, force: true });
  }
  return template;
}

/** The local addresses listening on TCP `port`, from /proc/net/tcp and tcp6 (`127.0.0.1`, `0.0.0.0`, `::`…). */
export function listeningAddresses(port: number): string[] {
  const found: string[] = [];
  for (const file of ['/proc/net/tcp', '/proc/net/tcp6']) {
    for (const line of readFileSync(file, 'utf8').split('\n').slice(1)) {
      const [, local, , state] = line.trim().split(/\s+/);
      if (!local || state !== '0A') continue;
      const [hex, portHex] = local.split(':');
      if (Number.parseInt(portHex!, 16) !== port) continue;
      found.push(hex!.length === 8 ? ipv4(hex!) : ipv6(hex!));
    }
  }
  return found;
}

function ipv4(hex: string): string {
  return [3, 2, 1, 0].map((i) => Number.parseInt(hex.slice(i * 2, i * 2 + 2), 16)).join('.');
}

function ipv6(hex: string): string {
  if (/^0+$/.test(hex)) return '::';
  if (hex === '00000000000000000000000001000000') return '::1';
  return hex;
}

/**
 * The pids of the `redis-server` processes whose working folder is `dir` (a Redis started with `--dir`
 * changes into it), from /proc: whoever started them, whether or not they answer. Two on one folder write
 * one append-only file from two processes.
 */
export function redisServersIn(dir: string): number[] {
  const pids: number[] = [];
  for (const name of readdirSync('/proc')) {
    if (!/^\d+$/.test(name)) continue;
    try {
      if (readFileSync(`/proc/${name}/comm`, 'utf8').trim() !== 'redis-server') continue;
      if (readlinkSync(`/proc/${name}/cwd`) === dir) pids.push(Number(name));
    } catch {
      // Gone meanwhile, or another user's.
    }
  }
  return pids;
}
