import { finalCvKey } from '@forms/object-storage';
import { maskPii, scrubPii } from '@forms/observability';
import { SpamJudgementSchema, type StagedCv, toSubmissionStatus } from '@forms/schemas';
import { deliveredSpamVerdict, erasableAddress } from '@forms/worker';
import * as v from 'valibot';
import { type CliContext, Command, jsonOption, print, printJson, withExitCodes, withQueue } from '../cli-context.ts';
import { findPerson, type HeldSubmission } from '../find-person.ts';
import { findSubmissions } from '../find-submissions.ts';
import { readReplayHistory } from '../replay-history.ts';

type Options = { json?: boolean; reveal?: boolean };

/**
 * `ops show <id>`: one submission whole (or each of a contact's, by recordId; or each of a person's, by
 * email, the held ones too: find-person.ts): state, attempts, each failed attempt with its time (the worker
 * logs them on the job), the payload with personal fields masked unless `--reveal`.
 */
export function showCommand(ctx: CliContext): Command {
  return withExitCodes(new Command('show'), {
    ok: 'shown',
    failed: 'no submission found for the id, or Redis unreachable',
  })
    .description(
      "print one submission (by submission id or recordId), or a person's (by email): state, attempts, errors, payload",
    )
    .argument('<id>', "a submission id (sub_…), a recordId (con_… for contacts), or a person's email")
    .option('--reveal', 'show email, phone and names unmasked (mind who is watching)')
    .addOption(jsonOption())
    .action(async (id: string, options: Options) => {
      let held: HeldSubmission[] = [];
      const shown = await withQueue(ctx, async ({ queue, redis }) => {
        let jobs: Awaited<ReturnType<typeof findSubmissions>>;
        if (id.includes('@')) {
          ({ jobs, held } = await findPerson(queue, redis, ctx.config(), erasableAddress(id)));
        } else jobs = await findSubmissions(queue, redis, ctx.config().redis, id);
        return Promise.all(
          jobs.map(async (job) => {
            const [state, logs, history] = await Promise.all([
              job.getState(),
              queue.getJobLogs(String(job.id), 0, 49, true),
              readReplayHistory(redis, queue, String(job.id)),
            ]);
            const status = toSubmissionStatus(job, state);
            const data = (job.data as { data?: unknown }).data;
            // The spam verdict the job carries to the CRM (score and unsure reasons), as the CRM records it.
            const judged = v.safeParse(SpamJudgementSchema, (job.data as { judgement?: unknown }).judgement);
            const spam = judged.success ? deliveredSpamVerdict({ judgement: judged.output }) : undefined;
            const clean = (text: string) => (options.reveal ? text : scrubPii(text, data));
            return {
              ...status,
              ...(status.lastError ? { lastError: clean(status.lastError) } : {}),
              job: job.name,
              // This run's attempts (a replay starts them from zero), and every run's.
              attempts: job.attemptsMade,
              attemptsInAll: history.attemptsBefore + job.attemptsMade,
              runs: history.replays + 1,
              ...(spam ? { spam } : {}),
              errors: logs.logs.map(clean),
              ...cvWhere(String(job.id), state, data),
              payload: options.reveal ? data : maskPii(data),
            };
          }),
        );
      });
      const heldShown = held.map((h) => ({
        submissionId: h.id,
        kind: (h.payload as { kind?: string }).kind,
        state: 'held',
        reasons: h.judgement?.reasons.map((r) => `${r.layer}:${r.code}`) ?? [],
        payload: options.reveal
          ? (h.payload as { data?: unknown }).data
          : maskPii((h.payload as { data?: unknown }).data),
      }));
      if (shown.length === 0 && heldShown.length === 0) {
        process.exitCode = 1;
        if (options.json) return printJson(ctx, { id, found: false, submissions: [] });
        return print(ctx, `no submission found for ${id}`);
      }
      if (options.json) return printJson(ctx, { id, found: true, submissions: [...shown, ...heldShown] });
      for (const h of heldShown) {
        print(ctx, `${h.submissionId}  ${h.kind ?? '?'}  held (spam quarantine: ops spam list)`);
        print(ctx, `  reasons     ${h.reasons.join(', ') || '(none kept)'}`);
        print(ctx, `  payload${options.reveal ? '' : ' (masked; --reveal to unmask)'}:`);
        print(ctx, JSON.stringify(h.payload, null, 2).replace(/^/gm, '    '));
      }
      for (const s of shown) {
        const attempts =
          s.runs === 1
            ? `attempts ${s.attempts}`
            : `attempts ${s.attempts} this run, ${s.attemptsInAll} in all over ${s.runs} runs (replayed ${s.runs - 1}x)`;
        print(ctx, `${s.submissionId}  ${s.kind ?? '?'}  ${s.state}  ${attempts}`);
        for (const [label, value] of [
          ['recordId', s.recordId],
          ['accepted', s.acceptedAt],
          ['delivered', s.deliveredAt],
          ['failed', s.failedAt],
          ['crm record', s.crmRecordId],
          ['request id', s.requestId],
          ['last error', s.lastError],
          ['cv', s.cv],
        ] as const)
          if (value) print(ctx, `  ${label.padEnd(11)} ${value}`);
        if (s.spam)
          print(
            ctx,
            `  spam score  ${s.spam.score?.toFixed(4) ?? '(the filter abstained)'}  ${s.spam.reasons.length ? `unsure: ${s.spam.reasons.join(', ')}` : 'no reasons'}`,
          );
        if (s.errors.length) print(ctx, '  attempts that failed, and replays (the last 20, every run):');
        for (const line of s.errors) print(ctx, `    ${line}`);
        print(ctx, `  payload${options.reveal ? '' : ' (masked; --reveal to unmask)'}:`);
        print(ctx, JSON.stringify(s.payload, null, 2).replace(/^/gm, '    '));
      }
    });
}

/**
 * Where a careers application's CV is now: the worker copies the staged `incoming/cv/…` object to `cv/…`
 * and deletes the staged one when it delivers, so a delivered application's CV is at its `cv/…` key.
 */
function cvWhere(submissionId: string, state: string, data: unknown): { cv?: string } {
  const staged = (data as { stagedCv?: StagedCv } | undefined)?.stagedCv;
  if (!staged) return {};
  if (state === 'completed') return { cv: finalCvKey(submissionId, staged.contentType) };
  return { cv: `${staged.key} (staged; at ${finalCvKey(submissionId, staged.contentType)} once delivered)` };
}
