import { type ChildProcess, spawn } from 'node:child_process';
import { once } from 'node:events';
import { fileURLToPath } from 'node:url';

const REPO_ROOT = fileURLToPath(new URL('../../', import.meta.url));
const WORKER_MAIN = fileURLToPath(new URL('../../apps/worker/src/main.ts', import.meta.url));

export type WorkerProcess = { child: ChildProcess; output: () => string; exited: Promise<number | null> };

/** Runs apps/worker's main.ts as its own process, as production does, with `env` added to ours. */
export async function spawnWorker(env: Record<string, string>): Promise<WorkerProcess> {
  // `node --import tsx`, not the tsx CLI: the CLI runs the script in a child process, so a signal sent to
  // it would not reach the worker (a SIGKILL would leave the real worker running, orphaned).
  const child = spawn(process.execPath, ['--import', 'tsx', WORKER_MAIN], {
    cwd: REPO_ROOT,
    env: { ...process.env, LOG_LEVEL: 'info', ...env },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let output = '';
  child.stdout!.on('data', (d) => (output += d));
  child.stderr!.on('data', (d) => (output += d));
  const exited = once(child, 'exit').then(([code]) => code as number | null);
  // Ready once it logs that it consumes; bounded so a broken start fails the test instead of hanging it.
  const deadline = Date.now() + 30_000;
  while (!output.includes('worker consuming')) {
    if (child.exitCode !== null || Date.now() > deadline) throw new Error(`worker did not start:\n${output}`);
    await new Promise((r) => setTimeout(r, 50));
  }
  return { child, output: () => output, exited };
}
