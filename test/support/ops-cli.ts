import { spawn } from 'node:child_process';
import { REPO_ROOT } from './spawn-app.ts';

const OPS_MAIN = `${REPO_ROOT}apps/ops/src/main.ts`;

export type OpsRun = { code: number | null; stdout: string; stderr: string; json: any };

/**
 * Runs `ops <args>` as its own process (`node apps/ops/src/main.ts`, what `pnpm ops` runs),
 * with `env` added to ours and stdin closed (not a terminal), and parses stdout as JSON when it is.
 * Bounded: killed after `timeoutMs`.
 */
export async function runOps(
  args: string[],
  env: Record<string, string>,
  { timeoutMs = 60_000 } = {},
): Promise<OpsRun> {
  // Never the run's own DATABASE_URL, as for the apps (spawn-app.ts): a test names the CRM it made.
  const { DATABASE_URL: _ours, ...inherited } = process.env;
  const child = spawn(process.execPath, [OPS_MAIN, ...args], {
    cwd: REPO_ROOT,
    env: { ...inherited, ...env },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let stdout = '';
  let stderr = '';
  child.stdout.on('data', (d) => (stdout += d));
  child.stderr.on('data', (d) => (stderr += d));
  const timer = setTimeout(() => child.kill('SIGKILL'), timeoutMs);
  const code = await new Promise<number | null>((resolve) => child.on('exit', (c) => resolve(c)));
  clearTimeout(timer);
  let json: unknown;
  try {
    json = JSON.parse(stdout);
  } catch {
    json = undefined;
  }
  return { code, stdout, stderr, json };
}
