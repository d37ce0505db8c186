import { Command } from 'commander';
import type { CliContext } from './cli-context.ts';
import { auditCommand } from './commands/audit-command.ts';
import { eraseCommand } from './commands/erase-command.ts';
import { failedCommand } from './commands/failed-command.ts';
import { purgeCommand } from './commands/purge-command.ts';
import { rekeyCommand } from './commands/rekey-command.ts';
import { replayCommand } from './commands/replay-command.ts';
import { showCommand } from './commands/show-command.ts';
import { spamCommand } from './commands/spam-command.ts';
import { statusCommand } from './commands/status-command.ts';

/** The `ops` program: nine commands, each with its own `--help`. */
export function createProgram(ctx: CliContext): Command {
  const program = new Command('ops')
    .description(
      'See, replay and purge failed CRM writes; watch the queue; manage the spam quarantine; read the audit trail; erase a person; record a new shared secret. Reads REDIS_URL (or REDIS_CLUSTER_NODES) and QUEUE_NAME like the apps.\n' +
        'Exit codes: 0 ok, and for a change that already holds (released, replayed, purged or erased before: twice is harmless); ' +
        '1 failed (Redis unreachable, a job that could not be changed, nothing found for an id); 2 bad usage. ' +
        "Each command's --help says what each means for it.",
    )
    .showHelpAfterError()
    .configureOutput({
      writeOut: (text) => ctx.stdout.write(text),
      writeErr: (text) => ctx.stderr.write(text),
    })
    .exitOverride();
  for (const command of [
    failedCommand,
    showCommand,
    replayCommand,
    purgeCommand,
    statusCommand,
    spamCommand,
    auditCommand,
    eraseCommand,
    rekeyCommand,
  ]) {
    // Subcommands inherit neither exitOverride nor the output streams: set both on each.
    program.addCommand(
      command(ctx)
        .exitOverride()
        .configureOutput({ writeOut: (t) => ctx.stdout.write(t), writeErr: (t) => ctx.stderr.write(t) }),
    );
  }
  return program;
}
