import { createInterface } from 'node:readline/promises';
import { EraseRefused, type EraseReport, erasableAddress, openStandaloneEraser } from '@forms/worker';
import {
  type CliContext,
  Command,
  jsonOption,
  positiveInt,
  print,
  printJson,
  UsageError,
  withExitCodes,
  withQueue,
} from '../cli-context.ts';

type Options = { email: string; dryRun?: boolean; yes?: boolean; json?: boolean; wait: number };

/**
 * `ops erase --email <address>`: removes one person from every store (jobs in every state, the quarantine,
 * the idempotency records, the contact index, the CRM, the CV objects), leaves a tombstone so no queued,
 * retried or replayed job brings them back, and writes an audit entry naming them by a keyed hash. It runs
 * here, with the worker's own configuration (the same environment): the worker's code, the same CRM and
 * bucket. `--dry-run` reads only and counts by store.
 */
export function eraseCommand(ctx: CliContext): Command {
  return withExitCodes(new Command('erase'), {
    ok: 'erased, or counted with --dry-run; nothing left to erase (erased before) included',
    failed:
      'a job of theirs still running after --wait (run it again once it ends); Redis, the CRM or the bucket out of reach ' +
      '(its setting named; nothing changed); a stop half-way (by store; run it again)',
    usage: 'no ERASURE_KEY or one that differs from the workers, an address that is not one, not confirmed',
  })
    .description('erase one person everywhere, by email (asks first; --yes to skip; --dry-run to count only)')
    .requiredOption('--email <address>', 'the address to erase (any case)')
    .option('--dry-run', 'count what would be removed, by store; change nothing')
    .option('--yes', 'do not ask for confirmation')
    .option('--wait <seconds>', 'how long to wait for their jobs a worker is running now', positiveInt, 60)
    .addOption(jsonOption())
    .action(async (options: Options) => {
      try {
        erasableAddress(options.email);
      } catch (err) {
        if (err instanceof EraseRefused) throw new UsageError(`--email: ${err.message}`);
        throw err;
      }
      const config = ctx.config().worker();
      if (!config.erasureKey)
        throw new UsageError(
          'ERASURE_KEY is not set: erase needs the same secret as the workers (see docs/configuration.md)',
        );
      if (!options.dryRun && !options.yes) await confirm(ctx);
      // The eraser's connections retry for ever, as the worker's do: check Redis answers first, the way every
      // other command fails fast (exit 1 with where it looked), instead of hanging a terminal.
      await withQueue(ctx, ({ redis }) => redis.ping());
      let eraser: Awaited<ReturnType<typeof openStandaloneEraser>>;
      try {
        eraser = await openStandaloneEraser(config, ctx.config().actor);
      } catch (err) {
        // An ERASURE_KEY that differs from the workers': configuration, nothing erased (exit 2).
        if (err instanceof EraseRefused) throw new UsageError(err.message);
        throw err;
      }
      let report: EraseReport;
      try {
        report = await eraser.erase(options.email, {
          dryRun: options.dryRun === true,
          activeWaitMs: options.wait * 1000,
        });
      } catch (err) {
        // As above, when the check at the erase itself finds the key differs.
        if (err instanceof EraseRefused) throw new UsageError(err.message);
        throw err;
      } finally {
        await eraser.close();
      }
      if (report.stillActive.length > 0) process.exitCode = 1;
      if (options.json) return printJson(ctx, report);
      const jobs = Object.values(report.jobs).reduce((a, b) => a + b, 0);
      const verb = report.dryRun ? 'would remove' : 'removed';
      print(ctx, `${report.dryRun ? 'dry run: ' : ''}${verb}, for subject ${report.subject}:`);
      print(ctx, `  jobs              ${jobs} ${JSON.stringify(report.jobs)}`);
      print(ctx, `  quarantine        ${report.quarantine}`);
      print(ctx, `  idempotency keys  ${report.idempotencyRecords}`);
      print(ctx, `  index keys        ${report.indexKeys}`);
      print(ctx, `  CRM records       ${report.crmRecords}`);
      print(ctx, `  CV objects        ${report.cvObjects}`);
      if (report.stillActive.length > 0)
        print(ctx, `  still running: ${report.stillActive.join(', ')}; run erase again once they end`);
    });
}

async function confirm(ctx: CliContext) {
  if (!ctx.stdin.isTTY) throw new UsageError('not a terminal: add --yes to erase without a question');
  const rl = createInterface({ input: ctx.stdin, output: ctx.stderr });
  try {
    const answer = await rl.question('This erases the person everywhere, for good. Type "erase" to go on: ');
    if (answer.trim() !== 'erase') throw new UsageError('not confirmed; nothing erased');
  } finally {
    rl.close();
  }
}
