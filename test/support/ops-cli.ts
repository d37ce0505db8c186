import { spawn } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { REPO_ROOT } from './spawn-app.ts';

const OPS_MAIN = `${REPO_ROOT}apps/ops/src/main.ts`;

export type OpsRun = { code: number | null; stdout: string; stderr: string; json: any };

/**
 * Runs `ops <args>` as its own process (`node apps/ops/src/main.ts`, what `pnpm ops` runs),
 * with `env` added to ours (a key set to undefined is left out) and stdin closed (not a terminal), and parses
 * stdout as JSON when it is. Bounded: killed after `timeoutMs`. Its DATA_DIR is an empty folder of its own
 * unless `env` names one: run in the checkout, ops would otherwise find the `.data/local.json` of the
 * developer's own `pnpm start` there and take its S3 and ERASURE_KEY for the test's.
 * `firstLineOnly`: the reader closes its end of the pipe after the first line, as `| head -1` does.
 */
export async function runOps(
  args: string[],
  env: Record<string, string | undefined>,
  { timeoutMs = 60_000, firstLineOnly = false } = {},
): Promise<OpsRun> {
  // Never the run's own DATABASE_URL, as for the apps (spawn-app.ts): a test names the CRM it made.
  const { DATABASE_URL: _ours, ...inherited } = process.env;
  const ownDir = env.DATA_DIR === undefined ? mkdtempSync(join(tmpdir(), 'ops-cli-')) : undefined;
  const child = spawn(process.execPath, [OPS_MAIN, ...args], {
    cwd: REPO_ROOT,
    env: Object.fromEntries(
      Object.entries({ ...inherited, DATA_DIR: ownDir, ...env }).filter(([, value]) => value !== undefined),
    ),
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let stdout = '';
  let stderr = '';
  child.stdout.on('data', (d) => {
    stdout += d;
    if (firstLineOnly && stdout.includes('\n')) {
      stdout = stdout.slice(0, stdout.indexOf('\n') + 1);
      child.stdout.destroy();
    }
  });
  child.stderr.on('data', (d) => (stderr += d));
  const timer = setTimeout(() => child.kill('SIGKILL'), timeoutMs);
  const code = await new Promise<number | null>((resolve) => child.on('exit', (c) => resolve(c)));
  clearTimeout(timer);
  if (ownDir) rmSync(ownDir, { recursive: true, force: true });
  let json: unknown;
  try {
    json = JSON.parse(stdout);
  } catch {
    json = undefined;
  }
  return { code, stdout, stderr, json };
}
