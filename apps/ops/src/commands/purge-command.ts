import { createInterface } from 'node:readline/promises';
import {
  auditAction,
  type CliContext,
  Command,
  type FilterOptions,
  hasFilter,
  jsonOption,
  print,
  printJson,
  toFilter,
  UsageError,
  withExitCodes,
  withFilterOptions,
  withQueue,
} from '../cli-context.ts';
import { forEachFailedJob } from '../for-each-failed-job.ts';
import { startProgress } from '../progress.ts';

type Options = FilterOptions & { json?: boolean; yes?: boolean; dryRun?: boolean; all?: boolean };

/**
 * `ops purge`: removes failed jobs for good (the CRM never gets them). Same filters as `failed`; it asks
 * the operator to type what it will do unless `--yes`, and refuses without `--yes` when nobody is at a
 * terminal to ask (exit 2).
 */
export function purgeCommand(ctx: CliContext): Command {
  return withExitCodes(withFilterOptions(new Command('purge'), ctx.now), {
    ok: 'the matching failed jobs are removed, none matching (purged before) included',
    failed: 'Redis unreachable',
    usage: 'no --yes off a terminal, not confirmed',
  })
    .description('remove failed jobs for good (asks first; --yes to skip the question)')
    .option('--all', 'every failed job')
    .option('--yes', 'do not ask for confirmation')
    .option('--dry-run', 'say what would be removed, change nothing')
    .addOption(jsonOption())
    .action(async (options: Options) => {
      if (!hasFilter(options) && !options.all)
        throw new UsageError('say what to purge: a filter (--since 2h, --code 422, …) or --all');
      const result = await withQueue(ctx, async (open) => {
        const { queue } = open;
        const ids: string[] = [];
        await forEachFailedJob(queue, toFilter(options), (job) => ids.push(String(job.id)));
        if (options.dryRun || ids.length === 0)
          return { dryRun: Boolean(options.dryRun), matched: ids.length, removed: 0 };
        if (!options.yes) await confirm(ctx, ids.length);
        let removed = 0;
        const audit = await auditAction(ctx, open, {
          action: 'purge',
          filter: { ...toFilter(options), ...(options.all ? { all: true } : {}) },
          jobIds: ids,
        });
        const progress = startProgress({ label: 'purge', total: ids.length, stream: ctx.stderr });
        try {
          for (const id of ids) {
            const job = await queue.getJob(id);
            // Only while still failed: a job replayed meanwhile is live again and must not be dropped.
            if (job && (await job.isFailed())) removed += (await queue.remove(id)) ? 1 : 0;
            progress.tick();
          }
        } catch (err) {
          await audit.complete({ outcome: 'failed', count: removed, detail: { error: (err as Error).message } });
          throw err;
        } finally {
          progress.stop();
        }
        await audit.complete({ outcome: 'ok', count: removed, detail: { matched: ids.length } });
        return { dryRun: false, matched: ids.length, removed };
      });
      if (options.json) return printJson(ctx, result);
      print(
        ctx,
        result.dryRun
          ? `dry run: would remove ${result.matched}`
          : `removed ${result.removed} of ${result.matched} matched`,
      );
    });
}

async function confirm(ctx: CliContext, count: number) {
  if (!ctx.stdin.isTTY) throw new UsageError('not a terminal: add --yes to purge without a question');
  const answerWanted = `purge ${count}`;
  const rl = createInterface({ input: ctx.stdin, output: ctx.stderr });
  try {
    const answer = await rl.question(`This removes ${count} failed job(s) for good. Type "${answerWanted}" to go on: `);
    if (answer.trim() !== answerWanted) throw new UsageError('not confirmed; nothing removed');
  } finally {
    rl.close();
  }
}
