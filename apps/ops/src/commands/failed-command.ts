import {
  type CliContext,
  Command,
  type FilterOptions,
  jsonOption,
  positiveInt,
  print,
  printJson,
  toFilter,
  withExitCodes,
  withFilterOptions,
  withQueue,
} from '../cli-context.ts';
import { type FailedJobRow, failedJobRow, formatAge } from '../failed-job-row.ts';
import { forEachFailedJob } from '../for-each-failed-job.ts';

type Options = FilterOptions & { json?: boolean; limit: number };

/** `ops failed`: the failed jobs that match, newest first, and a count per error over all of them. */
export function failedCommand(ctx: CliContext): Command {
  return withExitCodes(withFilterOptions(new Command('failed'), ctx.now), {
    ok: 'listed, none matching included (`no failed jobs match`)',
    failed: 'Redis unreachable',
  })
    .description('list failed jobs: id, kind, age, attempts, last error; a count per error at the end')
    .option('--limit <n>', 'list at most this many (the counts cover every match)', positiveInt, 1000)
    .addOption(jsonOption())
    .action(async (options: Options) => {
      const rows: FailedJobRow[] = [];
      const byError = new Map<string, number>();
      const now = ctx.now();
      const count = await withQueue(ctx, ({ queue }) =>
        forEachFailedJob(queue, toFilter(options), (job) => {
          const row = failedJobRow(job, now);
          byError.set(row.errorGroup, (byError.get(row.errorGroup) ?? 0) + 1);
          if (rows.length < options.limit) rows.push(row);
        }),
      );
      const errors = [...byError].sort((a, b) => b[1] - a[1]).map(([error, n]) => ({ error, count: n }));
      if (options.json) return printJson(ctx, { count, listed: rows.length, jobs: rows, errors });
      if (count === 0) return print(ctx, 'no failed jobs match');
      for (const row of rows)
        print(
          ctx,
          [
            row.id,
            (row.kind ?? '?').padEnd(17),
            formatAge(row.ageSeconds).padStart(6),
            `${row.attempts}x`,
            row.error,
          ].join('  '),
        );
      if (rows.length < count) print(ctx, `… ${count - rows.length} more (raise --limit to list them)`);
      print(ctx, `\n${count} failed job(s) by error:`);
      for (const { error, count: n } of errors) print(ctx, `${String(n).padStart(8)}  ${error}`);
    });
}
