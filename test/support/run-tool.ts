import { execFile } from 'node:child_process';
import { fileURLToPath } from 'node:url';

/** A command-line tool installed in the test package (node_modules/.bin). */
export function binPath(name: string): string {
  return fileURLToPath(new URL(`../node_modules/.bin/${name}`, import.meta.url));
}

/** Runs a tool to completion within `timeoutMs`, whatever its exit code, and returns what it printed. */
export function runTool(
  name: string,
  args: string[],
  { timeoutMs = 60_000 } = {},
): Promise<{ code: number | null; stdout: string; stderr: string }> {
  return new Promise((resolve, reject) => {
    execFile(binPath(name), args, { timeout: timeoutMs, maxBuffer: 32 * 1024 * 1024 }, (err, stdout, stderr) => {
      if (err && (err as NodeJS.ErrnoException).code === 'ENOENT') return reject(err);
      resolve({ code: err ? ((err as { code?: number }).code ?? null) : 0, stdout, stderr });
    });
  });
}
