import { CommanderError } from 'commander';
import type { CliContext } from './cli-context.ts';
import { UsageError } from './cli-context.ts';
import { createProgram } from './create-program.ts';

/** Runs one command line; resolves with the exit code: 0 ok, 1 failed, 2 bad usage. */
export async function runOps(argv: string[], ctx: CliContext): Promise<number> {
  const program = createProgram(ctx);
  try {
    await program.parseAsync(argv, { from: 'user' });
    return typeof process.exitCode === 'number' ? process.exitCode : 0;
  } catch (err) {
    if (err instanceof CommanderError) {
      // --help and --version come through here too, as successes.
      if (err.exitCode === 0) return 0;
      return 2;
    }
    ctx.stderr.write(`error: ${(err as Error).message}\n`);
    return err instanceof UsageError || (err as Error).message.startsWith('Invalid configuration') ? 2 : 1;
  }
}
