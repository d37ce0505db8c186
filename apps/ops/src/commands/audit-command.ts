import { type CliContext, Command, jsonOption, print, printJson, withExitCodes, withQueue } from '../cli-context.ts';
import { parseTime } from '../parse-time.ts';
import { readAuditTrail } from '../read-audit-trail.ts';

type Options = { json?: boolean; since?: number };

/** `ops audit`: who replayed, purged or released what, when, and how it ended; oldest first. */
export function auditCommand(ctx: CliContext): Command {
  return withExitCodes(new Command('audit'), { ok: 'listed, none recorded included', failed: 'Redis unreachable' })
    .description('list the ops actions the audit trail holds (replay, purge, spam release/purge, Bull Board writes)')
    .option(
      '--since <time>',
      'only actions started at or after this time or this long ago (2h, 2026-11-23T09:00Z)',
      (v) => parseTime(v, ctx.now()),
    )
    .addOption(jsonOption())
    .action(async (options: Options) => {
      const actions = await withQueue(ctx, ({ redis }) =>
        readAuditTrail(redis, ctx.config().keys.audit, options.since),
      );
      if (options.json) return printJson(ctx, { count: actions.length, actions });
      if (actions.length === 0) return print(ctx, 'no ops actions recorded');
      for (const a of actions) {
        const ended = a.outcome === 'incomplete' ? 'INCOMPLETE' : `${a.outcome}, ${a.changed} changed`;
        print(ctx, `${a.at}  ${a.actor}  ${a.action}  ${JSON.stringify(a.filter)}  ${a.count} job(s)  → ${ended}`);
      }
    });
}
