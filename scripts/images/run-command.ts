import { execFile } from 'node:child_process';

/**
 * Runs a command to completion and returns its standard output; a non-zero exit throws an error that carries
 * the command and the last lines it printed, so a failed step says what failed.
 */
export function runCommand(
  command: string,
  args: string[],
  { timeoutMs = 600_000, env }: { timeoutMs?: number; env?: NodeJS.ProcessEnv } = {},
): Promise<string> {
  return new Promise((resolve, reject) => {
    execFile(command, args, { timeout: timeoutMs, maxBuffer: 256 * 1024 * 1024, env }, (err, stdout, stderr) => {
      if (!err) return resolve(stdout);
      const tail = `${stdout}\n${stderr}`.trim().split('\n').slice(-25).join('\n');
      reject(new Error(`${command} ${args.join(' ')} failed (${err.code ?? err.signal ?? err.message}):\n${tail}`));
    });
  });
}
