import { type ChildProcess, spawn } from 'node:child_process';
import { once } from 'node:events';
import { readFileSync } from 'node:fs';
import { REPO_ROOT } from './spawn-app.ts';
import { sleep } from './wait.ts';

export type StartProcess = {
  child: ChildProcess;
  output: () => string;
  exited: Promise<{ code: number | null; signal: NodeJS.Signals | null }>;
  /** The gateway's URL, from the launcher's "listening on" line. */
  url: string;
  /** Sends `signal` to the whole process group, as a terminal's Ctrl-C does. */
  signal: (signal: NodeJS.Signals) => void;
};

/**
 * Runs `pnpm start` (`via: 'pnpm'`) or scripts/start.ts itself (`via: 'node'`) in its own process group
 * with `env` added to ours, and resolves once it logs "listening on" (bounded). DATA_DIR should be the
 * test's own folder.
 */
export async function spawnStart(
  env: Record<string, string>,
  { via = 'node', script = 'start' }: { via?: 'node' | 'pnpm'; script?: 'start' | 'demo' } = {},
): Promise<StartProcess> {
  const { DATABASE_URL: _ours, ...inherited } = process.env;
  const [command, args] =
    via === 'pnpm' ? ['pnpm', [script]] : [process.execPath, ['--import', 'tsx', `${REPO_ROOT}scripts/start.ts`]];
  // pnpm as a terminal runs it: this run's PATH starts with node_modules/.bin, whose `node` is pnpm's shell
  // shim (no exec), which a terminal's Ctrl-C would kill under pnpm itself.
  const PATH = (process.env.PATH ?? '')
    .split(':')
    .filter((dir) => !dir.endsWith('node_modules/.bin'))
    .join(':');
  const child = spawn(command, args as string[], {
    cwd: REPO_ROOT,
    env: { ...inherited, PATH, LOG_LEVEL: 'info', PORT: '0', ...env },
    stdio: ['ignore', 'pipe', 'pipe'],
    detached: true,
  });
  let output = '';
  child.stdout!.on('data', (d) => (output += d));
  child.stderr!.on('data', (d) => (output += d));
  const exited = once(child, 'exit').then(([code, signal]) => ({
    code: code as number | null,
    signal: signal as NodeJS.Signals | null,
  }));
  const ready = script === 'demo' ? /demo site: \S+ {2}\(gateway: (\S+)\)/ : /listening on (http:\/\/\S+)/;
  const deadline = Date.now() + 90_000;
  for (;;) {
    if (ready.test(output)) break;
    if (child.exitCode !== null || Date.now() > deadline) {
      if (child.exitCode === null) process.kill(-child.pid!, 'SIGKILL');
      throw new Error(`${via} ${script} did not start (exit code ${child.exitCode}):\n${output}`);
    }
    await sleep(100);
  }
  return {
    child,
    output: () => output,
    exited,
    url: ready.exec(output)![1]!,
    signal: (signal) => process.kill(-child.pid!, signal),
  };
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
