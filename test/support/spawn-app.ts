import { type ChildProcess, spawn } from 'node:child_process';
import { once } from 'node:events';
import { fileURLToPath } from 'node:url';
import { freePort } from '@forms/local-services';
import { sleep } from './wait.ts';

export const REPO_ROOT = fileURLToPath(new URL('../../', import.meta.url));

/** Each app's entry as TypeScript, and the line it logs once it serves. */
const APPS = {
  gateway: { main: 'apps/gateway/src/main.ts', ready: 'gateway listening on' },
  worker: { main: 'apps/worker/src/main.ts', ready: 'worker consuming' },
} as const;

export type AppProcess = { child: ChildProcess; output: () => string; exited: Promise<number | null> };
export type GatewayProcess = AppProcess & { url: string };
export type WorkerProcess = AppProcess;

/**
 * Runs an app as its own process, as production does, with `env` added to ours (or, with `inheritEnv:
 * false`, to PATH alone), and resolves
 * once it logs that it serves (or `waitFor`); bounded, so a broken start fails the
 * test instead of hanging it. `entry` runs another file of it (the built `dist/main.js`);
 * `root` runs the app of another checkout (a benchmark's before and after).
 */
export async function spawnApp(
  app: keyof typeof APPS,
  env: Record<string, string>,
  {
    entry,
    root = REPO_ROOT,
    cwd = root,
    inheritEnv = true,
    waitFor = APPS[app].ready,
  }: { entry?: string; root?: string; cwd?: string; inheritEnv?: boolean; waitFor?: string } = {},
): Promise<AppProcess> {
  // This checkout's TypeScript on Node's own type stripping, as `pnpm start` runs it; another checkout's
  // through tsx (older ones hold syntax that stripping cannot erase).
  const loader = entry || root === REPO_ROOT ? [] : ['--import', 'tsx'];
  const args = [...loader, `${root}${entry ?? APPS[app].main}`];
  // Never the run's own DATABASE_URL: a test names the database it created (`store.workerEnv`), so no app
  // writes a database its test did not create.
  const { DATABASE_URL: _ours, ...inherited } = process.env;
  const base = inheritEnv ? inherited : { PATH: process.env.PATH };
  const child = spawn(process.execPath, args, {
    cwd,
    env: { ...base, LOG_LEVEL: 'info', ...env },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let output = '';
  child.stdout!.on('data', (d) => (output += d));
  child.stderr!.on('data', (d) => (output += d));
  const exited = once(child, 'exit').then(([code]) => code as number | null);
  const deadline = Date.now() + 60_000;
  while (!output.includes(waitFor)) {
    if (child.exitCode !== null || Date.now() > deadline)
      throw new Error(`${app} did not start (exit code ${child.exitCode}):\n${output}`);
    await sleep(50);
  }
  return { child, output: () => output, exited };
}

/** apps/gateway as its own process on a free 127.0.0.1 port. */
export async function spawnGateway(env: Record<string, string>): Promise<GatewayProcess> {
  const port = await freePort();
  const gateway = await spawnApp('gateway', { ...env, PORT: String(port), HOST: '127.0.0.1' });
  return { ...gateway, url: `http://127.0.0.1:${port}` };
}

/** apps/worker as its own process; of another installed checkout at `root` (ending in '/') when given. */
export function spawnWorker(env: Record<string, string>, root?: string): Promise<WorkerProcess> {
  return spawnApp('worker', env, root ? { root } : {});
}
