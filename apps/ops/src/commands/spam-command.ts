import { maskPii } from '@forms/observability';
import {
  endpointFor,
  JOB_OPTIONS,
  type JobPayload,
  jobNameFor,
  parseJobPayload,
  type SpamJudgement,
  SpamJudgementSchema,
} from '@forms/schemas';
import { akismetCall, freeTexts, spamFeatures, trainSpamModel } from '@forms/spam-filter';
import * as v from 'valibot';
import {
  auditAction,
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
import { markCrmSpam } from '../mark-crm-spam.ts';
import type { OpenQueue } from '../open-queue.ts';

const PAGE = 500;

/**
 * `ops spam list|show|release|purge`: the quarantine of submissions the spam layers held (kept by the gateway
 * under their own submission ids, exactly as they would have been queued, with the reasons they were held
 * for). Release queues one under its own id, so releasing twice delivers once; release and purge are audited.
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
      .description('quarantined submissions, newest first: id, kind, age, reasons (no personal data)')
      .option('--limit <n>', 'list at most this many', positiveInt, 1000)
      .addOption(jsonOption())
      .action(async (options: { json?: boolean; limit: number }) => {
        const now = ctx.now();
        const { count, rows } = await withQueue(ctx, async (open) => {
          const { spamIndex } = ctx.config().keys;
          const total = await open.redis.zcard(spamIndex);
          const entries = await open.redis.zrevrange(spamIndex, 0, options.limit - 1, 'WITHSCORES');
          const ids = entries.filter((_, i) => i % 2 === 0);
          const { payloads, malformed } = await readPayloads(ctx, open, ids);
          const judgements = await readJudgements(ctx, open, ids);
          return {
            count: total,
            rows: ids.map((id, i) => ({
              id,
              kind: payloads.get(id)?.kind,
              recordId: payloads.get(id)?.recordId,
              acceptedAt: payloads.get(id)?.acceptedAt,
              reasons: judgements.get(id)?.reasons.map(reasonLabel) ?? [],
              ...(judgements.get(id)?.agent ? { agent: judgements.get(id)!.agent } : {}),
              ...(malformed.has(id) ? { malformed: malformed.get(id) } : {}),
              quarantinedAt: new Date(Number(entries[i * 2 + 1])).toISOString(),
              ageSeconds: Math.round((now - Number(entries[i * 2 + 1])) / 1000),
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
            `${r.id}  ${(r.kind ?? '?').padEnd(17)}  ${formatAge(r.ageSeconds).padStart(6)}  ${r.reasons.join(', ') || '(no reasons kept)'}${r.agent ? `  agent ${r.agent}` : ''}${r.malformed ? `  malformed: ${r.malformed}` : ''}`,
          );
        if (rows.length < count) print(ctx, `… ${count - rows.length} more (raise --limit to list them)`);
        print(ctx, `${rows.length} listed, by reason:`);
        for (const [reason, n] of common) print(ctx, `  ${String(n).padStart(6)}  ${reason}`);
      }),
  );

  sub(
    withExitCodes(new Command('show'), {
      ok: 'shown',
      failed: 'not in the quarantine (released, purged, expired or never caught), malformed, or Redis unreachable',
    })
      .description('one quarantined submission, its personal fields masked unless --reveal')
      .argument('<id>', 'a submission id (sub_…) from `spam list`')
      .option('--reveal', 'show email, phone and names unmasked (mind who is watching)')
      .addOption(jsonOption())
      .action(async (id: string, options: { json?: boolean; reveal?: boolean }) => {
        const read = await withQueue(ctx, (open) => readPayloads(ctx, open, [id]));
        const problem = read.malformed.get(id);
        if (problem) {
          process.exitCode = 1;
          if (options.json) return printJson(ctx, { id, found: true, malformed: problem });
          return print(ctx, `quarantined submission ${id} is malformed (${problem}): purge it`);
        }
        const payload = read.payloads.get(id);
        if (!payload) {
          process.exitCode = 1;
          if (options.json) return printJson(ctx, { id, found: false });
          return print(ctx, `no quarantined submission ${id}`);
        }
        const shown = { ...payload, data: options.reveal ? payload.data : maskPii(payload.data) };
        const kept = (await withQueue(ctx, (open) => readJudgements(ctx, open, [id]))).get(id);
        // The client's address is personal data: shown only with --reveal, like the payload's fields.
        const judgement = kept?.client && !options.reveal ? { ...kept, client: { ip: '***' } } : kept;
        if (options.json) return printJson(ctx, { id, found: true, judgement, submission: shown });
        print(ctx, `${id}  ${payload.kind}  accepted ${payload.acceptedAt}  recordId ${payload.recordId}`);
        if (judgement?.agent) print(ctx, `  sent by an agent: ${judgement.agent}`);
        if (judgement?.score !== undefined) print(ctx, `  content filter score ${judgement.score}`);
        print(ctx, '  held for:');
        for (const r of judgement?.reasons ?? []) print(ctx, `    ${reasonLabel(r)}  (weight ${r.weight})`);
        if (!judgement) print(ctx, '    (no reasons kept: quarantined by an older gateway)');
        print(ctx, `  payload${options.reveal ? '' : ' (masked; --reveal to unmask)'}:`);
        print(ctx, JSON.stringify(shown.data, null, 2).replace(/^/gm, '    '));
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
      .argument('<ids...>', 'submission ids from `spam list`')
      .addOption(jsonOption())
      .action(async (ids: string[], options: { json?: boolean }) => {
        const result = await withQueue(ctx, async (open) => {
          const { spamIndex, spamData, spamReasons } = ctx.config().keys;
          const { payloads, malformed } = await readPayloads(ctx, open, ids);
          const judgements = await readJudgements(ctx, open, ids);
          const found = ids.filter((id) => payloads.has(id));
          const audit = await auditAction(ctx, open, { action: 'spam release', filter: { ids }, jobIds: found });
          const released: string[] = [];
          try {
            for (const id of found) {
              const payload = payloads.get(id)!;
              // The job id is the submission id: a second release (or one racing this) adds nothing.
              await open.queue.add(jobNameFor(payload.kind), payload, { ...JOB_OPTIONS, jobId: payload.submissionId });
              // Out of the quarantine only once the queue holds it: a crash between leaves it to release again.
              await open.redis.multi().zrem(spamIndex, id).hdel(spamData, id).hdel(spamReasons, id).exec();
              released.push(id);
              // Not spam, ops say: the content filter learns it as ham, and Akismet is told (submit-ham).
              await teach(ctx, open, payload, 'ham', judgements.get(id));
            }
          } catch (err) {
            await audit.complete({
              outcome: 'failed',
              count: released.length,
              detail: { error: (err as Error).message },
            });
            throw err;
          }
          // Not in the quarantine: released before when the queue holds its job (the state asked for holds),
          // else missing (never quarantined, purged, expired, or delivered so long ago its job is gone). A
          // malformed entry is neither: it is there, and never released.
          const alreadyReleased: string[] = [];
          const missing: string[] = [];
          for (const id of ids.filter((id) => !payloads.has(id) && !malformed.has(id)))
            ((await open.queue.getJob(id)) ? alreadyReleased : missing).push(id);
          await audit.complete({
            outcome: 'ok',
            count: released.length,
            detail: { alreadyReleased: alreadyReleased.length, missing: missing.length, malformed: malformed.size },
          });
          return { released, alreadyReleased, missing, malformed: Object.fromEntries(malformed) };
        });
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
        'teach the content filter that submissions are spam: ones that got through (delivered in the last day) or ones held',
      )
      .argument('<ids...>', 'submission ids (sub_…) from `ops show`, `ops status` or `spam list`')
      .option('--ham', 'teach the opposite: these are not spam (delivered ones the filter should learn from)')
      .addOption(jsonOption())
      .action(async (ids: string[], options: { json?: boolean; ham?: boolean }) => {
        const label = options.ham ? 'ham' : 'spam';
        const result = await withQueue(ctx, async (open) => {
          const { payloads } = await readPayloads(ctx, open, ids);
          const judgements = await readJudgements(ctx, open, ids);
          const audit = await auditAction(ctx, open, { action: 'spam mark', filter: { ids, label }, jobIds: ids });
          const taught: string[] = [];
          const already: string[] = [];
          const missing: string[] = [];
          const delivered: string[] = []; // out of the quarantine: their CRM records are marked too
          for (const id of ids) {
            let payload = payloads.get(id);
            if (!payload) {
              const job = await open.queue.getJob(id);
              const read = job ? parseJobPayload(JSON.stringify(job.data)) : undefined;
              payload = read && 'payload' in read ? read.payload : undefined;
              if (payload && label === 'spam' && (await job!.isCompleted())) delivered.push(id);
            }
            if (!payload) missing.push(id);
            else ((await teach(ctx, open, payload, label, judgements.get(id))) ? taught : already).push(id);
          }
          await audit.complete({
            outcome: 'ok',
            count: taught.length,
            detail: { already: already.length, missing: missing.length },
          });
          return { taught, already, missing, crm: await markCrmSpam(ctx, open, delivered) };
        });
        if (result.missing.length > 0 || ('pending' in result.crm && result.crm.state === 'failed'))
          process.exitCode = 1;
        const counts = { taught: result.taught.length, already: result.already.length, missing: result.missing.length };
        const { crm, ...byId } = result;
        if (options.json) return printJson(ctx, { ...counts, ids: byId, crm });
        print(
          ctx,
          `taught as ${label} ${counts.taught}, taught so before ${counts.already}, missing ${counts.missing}`,
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
      .argument('[ids...]', 'submission ids from `spam list`')
      .option('--all', 'every quarantined submission')
      .option('--yes', 'really drop them')
      .addOption(jsonOption())
      .action(async (ids: string[], options: { json?: boolean; all?: boolean; yes?: boolean }) => {
        if (ids.length > 0 === Boolean(options.all)) throw new UsageError('give ids or --all (one of them)');
        if (!options.yes) throw new UsageError('spam purge drops submissions for good: add --yes');
        const removed = await withQueue(ctx, async (open) => {
          const { spamIndex, spamData, spamReasons } = ctx.config().keys;
          const targets = options.all ? await open.redis.zrange(spamIndex, '0', '-1') : ids;
          const audit = await auditAction(ctx, open, {
            action: 'spam purge',
            filter: options.all ? { all: true } : { ids },
            jobIds: targets,
          });
          let count = 0;
          for (let i = 0; i < targets.length; i += PAGE) {
            const page = targets.slice(i, i + PAGE);
            const [[, gone] = []] =
              (await open.redis
                .multi()
                .zrem(spamIndex, ...page)
                .hdel(spamData, ...page)
                .hdel(spamReasons, ...page)
                .exec()) ?? [];
            count += Number(gone ?? 0);
          }
          await audit.complete({ outcome: 'ok', count });
          return count;
        });
        if (options.json) return printJson(ctx, { removed });
        print(ctx, `removed ${removed}`);
      }),
  );
  return spam;
}

/**
 * The quarantined payloads of `ids` that are still there (HMGET a page at a time), each read through the job
 * catalog's schema: one that does not parse (hand-edited, or written by another version) is reported as
 * malformed with what is wrong, never cast to a payload, released into the queue, nor left to crash a command.
 */
async function readPayloads(
  ctx: CliContext,
  { redis }: OpenQueue,
  ids: string[],
): Promise<{ payloads: Map<string, JobPayload>; malformed: Map<string, string> }> {
  const payloads = new Map<string, JobPayload>();
  const malformed = new Map<string, string>();
  for (let i = 0; i < ids.length; i += PAGE) {
    const page = ids.slice(i, i + PAGE);
    if (page.length === 0) continue;
    const values = await redis.hmget(ctx.config().keys.spamData, ...page);
    page.forEach((id, j) => {
      if (!values[j]) return;
      const read = parseJobPayload(values[j]!);
      if ('payload' in read) payloads.set(id, read.payload);
      else malformed.set(id, read.problem);
    });
  }
  return { payloads, malformed };
}

/** The reasons kept beside each quarantined id (none for one quarantined before reasons were kept). */
async function readJudgements(
  ctx: CliContext,
  { redis }: OpenQueue,
  ids: string[],
): Promise<Map<string, SpamJudgement>> {
  const judgements = new Map<string, SpamJudgement>();
  for (let i = 0; i < ids.length; i += PAGE) {
    const page = ids.slice(i, i + PAGE);
    if (page.length === 0) continue;
    const values = await redis.hmget(ctx.config().keys.spamReasons, ...page);
    page.forEach((id, j) => {
      if (!values[j]) return;
      try {
        const parsed = v.safeParse(SpamJudgementSchema, JSON.parse(values[j]!));
        if (parsed.success) judgements.set(id, parsed.output);
      } catch {
        // Not JSON: shown as no reasons kept.
      }
    });
  }
  return judgements;
}

/** `layer code` or `layer code (detail)`: the detail is configuration or a score, never the submitter's text. */
function reasonLabel(r: SpamJudgement['reasons'][number]): string {
  return `${r.layer}:${r.code}${r.detail ? ` (${r.detail})` : ''}`;
}

/**
 * Teaches the shared model one submission's label (the gateways re-read it within SPAM_MODEL_REFRESH_SECONDS):
 * its free text's features, hashed, never its words. True when the model changed. With Akismet on, and the
 * client's address kept with a held submission (Akismet requires it), Akismet is told too (submit-spam or
 * submit-ham), once, when the model changed; a delivered submission kept no address and is taught locally only.
 */
async function teach(
  ctx: CliContext,
  { redis }: OpenQueue,
  payload: JobPayload,
  label: 'spam' | 'ham',
  judgement: SpamJudgement | undefined,
) {
  const emailField = endpointFor(payload.kind).emailField;
  const texts = freeTexts(payload.data, emailField);
  const email = String((payload.data as Record<string, unknown>)[emailField] ?? '');
  const changed = await trainSpamModel(
    redis,
    ctx.config().keys.spamModel,
    payload.submissionId,
    label,
    spamFeatures(texts, email),
  );
  const { akismet } = ctx.config();
  if (changed && akismet && judgement?.client) {
    const told = await akismetCall(akismet, label === 'spam' ? 'submit-spam' : 'submit-ham', {
      ...judgement.client,
      email,
      content: texts.join('\n'),
    });
    if ('unavailable' in told)
      ctx.stderr.write(`akismet not told about ${payload.submissionId}: ${told.unavailable}\n`);
  }
  return changed;
}
