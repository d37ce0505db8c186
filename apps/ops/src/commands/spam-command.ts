import {
  type HeldSubmission,
  listHeld,
  markSubmissions,
  maskHeld,
  purgeHeld,
  quarantineKeys,
  type ReviewDeps,
  readHeld,
  reasonLabel,
  releaseHeld,
  revealHeld,
  taughtLabels,
} from '@forms/quarantine';
import type { SpamJudgement } from '@forms/schemas';
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
import { formatAge } from '../failed-job-row.ts';
import { submissionIdsFor } from '../find-submissions.ts';
import { markCrmSpam } from '../mark-crm-spam.ts';
import type { OpenQueue } from '../open-queue.ts';

const PAGE = 500;
const IDS_FROM =
  'submission ids (sub_…, as the gateway answered them, or from `spam list`), contact recordIds (con_…) or Idempotency-Keys';

/**
 * `ops spam list|show|release|mark|purge`: the quarantine of submissions the spam layers held, with the
 * reasons they were held for. Every action is the quarantine package's (@forms/quarantine), the same the
 * admin page's buttons run; each is audited under OPS_ACTOR (or the OS user).
 */
export function spamCommand(ctx: CliContext): Command {
  const spam = new Command('spam').description(
    'the quarantine of submissions the spam layers held, with their reasons: list, show, release (deliver, and teach the filter: not spam), mark (teach the filter: spam), purge',
  );
  const sub = (command: Command) =>
    spam.addCommand(
      command
        .exitOverride()
        .configureOutput({ writeOut: (t) => ctx.stdout.write(t), writeErr: (t) => ctx.stderr.write(t) }),
    );

  sub(
    withExitCodes(new Command('list'), { ok: 'listed, an empty quarantine included', failed: 'Redis unreachable' })
      .description(
        'quarantined submissions, newest first: id, kind, age, reasons, the mark ops left (no personal data)',
      )
      .option('--limit <n>', 'list at most this many', positiveInt, 1000)
      .addOption(jsonOption())
      .action(async (options: { json?: boolean; limit: number }) => {
        const now = ctx.now();
        const { count, rows } = await withQueue(ctx, async ({ redis }) => {
          const keys = quarantineKeys(ctx.config().redis, ctx.config().queueName);
          const held: (HeldSubmission & { heldAt: number })[] = [];
          let total = 0;
          for (let offset: number | undefined = 0; offset !== undefined && held.length < options.limit; ) {
            const page = await listHeld(redis, keys, {
              offset,
              limit: Math.min(PAGE, options.limit - held.length),
              now,
            });
            total = page.total;
            held.push(...page.rows);
            offset = page.next;
          }
          return {
            count: total,
            rows: held.map((h) => ({
              id: h.id,
              kind: h.payload?.kind,
              recordId: h.payload?.recordId,
              acceptedAt: h.payload?.acceptedAt,
              reasons: h.judgement?.reasons.map(reasonLabel) ?? [],
              ...(h.judgement?.agent ? { agent: h.judgement.agent } : {}),
              ...(h.judgement?.reviewed ? { reviewed: h.judgement.reviewed } : {}),
              ...(h.malformed ? { malformed: h.malformed } : {}),
              quarantinedAt: new Date(h.heldAt).toISOString(),
              ageSeconds: Math.round((now - h.heldAt) / 1000),
            })),
          };
        });
        // The most common reasons among those listed: what the layers are catching, at a glance.
        const byReason = new Map<string, number>();
        for (const r of rows)
          for (const reason of new Set(r.reasons)) byReason.set(reason, (byReason.get(reason) ?? 0) + 1);
        const common = [...byReason].sort((a, b) => b[1] - a[1]);
        if (options.json)
          return printJson(ctx, {
            count,
            listed: rows.length,
            byReason: Object.fromEntries(common),
            submissions: rows,
          });
        if (count === 0) return print(ctx, 'the quarantine is empty');
        for (const r of rows)
          print(
            ctx,
            `${r.id}  ${(r.kind ?? '?').padEnd(17)}  ${formatAge(r.ageSeconds).padStart(6)}  ${r.reasons.join(', ') || '(no reasons kept)'}${r.agent ? `  agent ${r.agent}` : ''}${r.reviewed ? `  ${markText(r.reviewed)}` : ''}${r.malformed ? `  malformed: ${r.malformed}` : ''}`,
          );
        if (rows.length < count) print(ctx, `… ${count - rows.length} more (raise --limit to list them)`);
        print(ctx, `${rows.length} listed, by reason:`);
        for (const [reason, n] of common) print(ctx, `  ${String(n).padStart(6)}  ${reason}`);
      }),
  );

  sub(
    withExitCodes(new Command('show'), {
      ok: 'shown',
      failed: 'nothing found for the id (neither held nor in the queue), a malformed entry, or Redis unreachable',
    })
      .description(
        'quarantined submissions, personal fields masked unless --reveal (audited); one released or delivered says so, with the label ops taught it',
      )
      .argument('<id>', `a submission id, recordId or Idempotency-Key: ${IDS_FROM}`)
      .option('--reveal', 'show email, phone and names unmasked (mind who is watching; recorded in `ops audit`)')
      .addOption(jsonOption())
      .action(async (given: string, options: { json?: boolean; reveal?: boolean }) => {
        const found = await withQueue(ctx, async (open) => {
          const ids = await submissionIdsFor(open.queue, open.redis, ctx.config().redis, given);
          const held = options.reveal
            ? new Map(
                (await Promise.all(ids.map((id) => revealHeld(reviewDeps(ctx, open), id))))
                  .filter((h) => h !== undefined)
                  .map((h) => [h.id, h]),
              )
            : await readHeld(open.redis, reviewDeps(ctx, open).keys, ids);
          const taught = await taughtLabels(open.redis, ctx.config().keys.spamModel, ids);
          const states = await Promise.all(
            ids.map(async (id) =>
              held.has(id) ? 'held' : ((await (await open.queue.getJob(id))?.getState()) ?? null),
            ),
          );
          return ids.map((id, i) => ({ id, held: held.get(id), state: states[i]!, taught: taught.get(id) }));
        });
        if (found.every((f) => !f.held?.payload && !f.state) || found.some((f) => f.held?.malformed))
          process.exitCode = 1;
        const shown = found.map(({ id, held, state, taught }) => {
          if (!held) return { id, found: false, state, ...(taught ? { taught } : {}) };
          if (held.malformed) return { id, found: true, malformed: held.malformed };
          const view = options.reveal ? { data: held.payload!.data, judgement: held.judgement } : maskHeld(held);
          return {
            id,
            found: true,
            ...(taught ? { taught } : {}),
            judgement: view.judgement,
            submission: { ...held.payload!, data: view.data },
          };
        });
        if (options.json) return printJson(ctx, shown.length === 1 ? shown[0] : { id: given, submissions: shown });
        for (const { id, held, state, taught } of found) {
          if (held?.malformed) {
            print(ctx, `quarantined submission ${id} is malformed (${held.malformed}): purge it`);
            continue;
          }
          if (!held?.payload) {
            const where = state ? `not held: ${state} in the queue (\`ops show ${id}\`)` : 'no quarantined submission';
            print(ctx, `${id}  ${where}${taught ? `; taught as ${taught}` : ''}`);
            continue;
          }
          const { payload } = held;
          const { data, judgement } = options.reveal
            ? { data: payload.data, judgement: held.judgement }
            : maskHeld(held);
          print(ctx, `${id}  ${payload.kind}  accepted ${payload.acceptedAt}  recordId ${payload.recordId}`);
          if (judgement?.reviewed)
            print(ctx, `  ${markText(judgement.reviewed)} (still held: \`ops spam release ${id}\` delivers it)`);
          if (judgement?.agent) print(ctx, `  sent by an agent: ${judgement.agent}`);
          if (judgement?.score !== undefined) print(ctx, `  content filter score ${judgement.score}`);
          print(ctx, '  held for:');
          for (const r of judgement?.reasons ?? []) print(ctx, `    ${reasonLabel(r)}  (weight ${r.weight})`);
          if (!judgement) print(ctx, '    (no reasons kept: quarantined by an older gateway)');
          print(ctx, `  payload${options.reveal ? '' : ' (masked; --reveal to unmask)'}:`);
          print(ctx, JSON.stringify(data, null, 2).replace(/^/gm, '    '));
        }
      }),
  );

  sub(
    withExitCodes(new Command('release'), {
      ok: 'every id is released now or was already (its job is in the queue: twice is harmless)',
      failed:
        'an id neither in the quarantine nor in the queue (purged, expired or never caught), a malformed entry ' +
        '(never released), or Redis unreachable',
    })
      .description('queue quarantined submissions for the CRM under their own ids (twice is harmless)')
      .argument('<ids...>', IDS_FROM)
      .addOption(jsonOption())
      .action(async (given: string[], options: { json?: boolean }) => {
        const result = await withQueue(ctx, async (open) =>
          releaseHeld(reviewDeps(ctx, open), await resolveIds(ctx, open, given)),
        );
        const malformed = Object.entries(result.malformed);
        if (result.missing.length > 0 || malformed.length > 0) process.exitCode = 1;
        const counts = {
          released: result.released.length,
          alreadyReleased: result.alreadyReleased.length,
          missing: result.missing.length,
          malformed: malformed.length,
        };
        if (options.json) return printJson(ctx, { ...counts, ids: result });
        print(
          ctx,
          `released ${counts.released}, already released ${counts.alreadyReleased}, missing ${counts.missing}${counts.malformed ? `, malformed ${counts.malformed}` : ''}`,
        );
        for (const id of result.missing)
          print(ctx, `  missing ${id}: neither in the quarantine nor in the queue (purged, expired, or never caught)`);
        for (const [id, problem] of malformed) print(ctx, `  malformed ${id}: ${problem}; not released (purge it)`);
      }),
  );

  sub(
    withExitCodes(new Command('mark'), {
      ok: 'every id was taught (now or before: twice is harmless)',
      failed:
        'an id found neither in the quarantine nor in the queue (completed jobs are kept a day), or Redis unreachable',
    })
      .description(
        'teach the content filter that submissions are spam: ones that got through (delivered in the last day) or ones held (they stay held, marked as reviewed)',
      )
      .argument('<ids...>', IDS_FROM)
      .option(
        '--ham',
        'teach the opposite: these are not spam (a held one stays held, marked: `spam release` delivers it)',
      )
      .addOption(jsonOption())
      .action(async (given: string[], options: { json?: boolean; ham?: boolean }) => {
        const label = options.ham ? 'ham' : 'spam';
        const result = await withQueue(ctx, async (open) => {
          const marked = await markSubmissions(reviewDeps(ctx, open), await resolveIds(ctx, open, given), label);
          // Delivered ones marked spam: their CRM records are marked too (a field; nothing deleted).
          return { ...marked, crm: await markCrmSpam(ctx, open, label === 'spam' ? marked.delivered : []) };
        });
        if (result.missing.length > 0 || ('pending' in result.crm && result.crm.state === 'failed'))
          process.exitCode = 1;
        const counts = {
          taught: result.taught.length,
          already: result.already.length,
          missing: result.missing.length,
          held: result.held.length,
        };
        const { crm, ...byId } = result;
        if (options.json) return printJson(ctx, { ...counts, ids: byId, crm });
        print(
          ctx,
          `taught as ${label} ${counts.taught}, taught so before ${counts.already}, missing ${counts.missing}`,
        );
        if (result.held.length > 0)
          print(
            ctx,
            `  still held, marked as reviewed: ${result.held.join(' ')}${label === 'ham' ? ` (\`ops spam release ${result.held.join(' ')}\` delivers them)` : ''}`,
          );
        for (const id of result.missing)
          print(ctx, `  missing ${id}: neither in the quarantine nor in the queue (completed jobs are kept a day)`);
        if ('pending' in crm)
          print(
            ctx,
            `  CRM records not marked yet: job ${crm.pending} ${crm.state}${crm.failedReason ? ` (${crm.failedReason})` : ''}`,
          );
        else for (const id of crm.marked) print(ctx, `  marked spam in the CRM: ${id}`);
      }),
  );

  sub(
    withExitCodes(new Command('purge'), {
      ok: 'the ids are out of the quarantine, those gone before included (twice is harmless)',
      failed: 'Redis unreachable',
      usage: 'no --yes, ids and --all both or neither',
    })
      .description('drop quarantined submissions for good (--yes required)')
      .argument('[ids...]', IDS_FROM)
      .option('--all', 'every quarantined submission')
      .option('--yes', 'really drop them')
      .addOption(jsonOption())
      .action(async (given: string[], options: { json?: boolean; all?: boolean; yes?: boolean }) => {
        if (given.length > 0 === Boolean(options.all)) throw new UsageError('give ids or --all (one of them)');
        if (!options.yes) throw new UsageError('spam purge drops submissions for good: add --yes');
        const removed = await withQueue(ctx, async (open) =>
          purgeHeld(reviewDeps(ctx, open), options.all ? { all: true } : { ids: await resolveIds(ctx, open, given) }),
        );
        if (options.json) return printJson(ctx, { removed });
        print(ctx, `removed ${removed}`);
      }),
  );
  return spam;
}

/** The review operations under this CLI's actor (OPS_ACTOR or the OS user), Akismet's notices on stderr. */
function reviewDeps(ctx: CliContext, { queue, redis }: OpenQueue): ReviewDeps {
  const { actor, keys, akismet } = ctx.config();
  return { queue, redis, keys, actor, akismet, warn: (text) => ctx.stderr.write(`${text}\n`) };
}

/** Every id as the other commands take it (`submissionIdsFor`), each submission once. */
async function resolveIds(ctx: CliContext, { queue, redis }: OpenQueue, given: string[]): Promise<string[]> {
  const ids = await Promise.all(given.map((id) => submissionIdsFor(queue, redis, ctx.config().redis, id)));
  return [...new Set(ids.flat())];
}

function markText(reviewed: NonNullable<SpamJudgement['reviewed']>): string {
  return `reviewed: marked ${reviewed.label} by ${reviewed.by} at ${reviewed.at}`;
}
