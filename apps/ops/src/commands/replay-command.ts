import { jobTraceLink, withSpan } from '@forms/observability';
import { REPLAY_PRIORITY } from '@forms/schemas';
import type { Job } from 'bullmq';
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
import { findSubmissions } from '../find-submissions.ts';
import { forEachFailedJob } from '../for-each-failed-job.ts';
import type { OpenQueue } from '../open-queue.ts';
import { startProgress } from '../progress.ts';
import { recordReplay } from '../replay-history.ts';

type Options = FilterOptions & { json?: boolean; dryRun?: boolean; all?: boolean };
type Candidate = { id: string; acceptedAt: string };

/**
 * `ops replay`: moves failed jobs back to the queue with BullMQ's own `job.retry('failed')`. The job keeps
 * its id (the submission id) and payload, so it goes through the same worker, handler and CRM rate limiter
 * as live traffic (a replay can never outpace the CRM's limit), and every CRM write is an upsert, so a job
 * replayed twice, or replayed after it was delivered, leaves one record. Attempts start again from zero: a
 * replayed job gets the whole retry schedule, so a blip during the replay does not fail it again at once.
 * Replayed jobs get REPLAY_PRIORITY, so they go behind fresh submissions however many there are. The
 * audit trail records the replay before the first job moves and its outcome after the last.
 */
export function replayCommand(ctx: CliContext): Command {
  return withExitCodes(withFilterOptions(new Command('replay'), ctx.now), {
    ok: 'every job asked for is replayed, or no longer failed (replayed or delivered before: skipped); none matching a filter included',
    failed: 'an id that names no submission, a job that could not be replayed, or Redis unreachable',
  })
    .description('re-queue failed jobs (by id, by filter, or --all); safe to run twice')
    .argument('[ids...]', 'submission ids or recordIds to replay (instead of a filter)')
    .option('--all', 'every failed job (same as a --since far back)')
    .option('--dry-run', 'say what would be replayed, change nothing')
    .addOption(jsonOption())
    .action(async (ids: string[], options: Options) => {
      if (ids.length > 0 && hasFilter(options)) throw new UsageError('give ids or filter flags, not both');
      if (ids.length === 0 && !hasFilter(options) && !options.all)
        throw new UsageError('say what to replay: ids, a filter (--since 2h, --code 422, …) or --all');
      const result = await withQueue(ctx, async (open) => {
        const { queue, redis } = open;
        const missing: string[] = [];
        const skipped: { id: string; state: string }[] = [];
        const candidates: Candidate[] = [];
        if (ids.length > 0) {
          for (const id of ids) {
            const jobs = await findSubmissions(queue, redis, ctx.config().redis, id);
            if (jobs.length === 0) missing.push(id);
            for (const job of jobs) {
              const state = await job.getState();
              if (state === 'failed') candidates.push(candidateOf(job));
              else skipped.push({ id: String(job.id), state });
            }
          }
        } else {
          await forEachFailedJob(queue, toFilter(options), (job) => candidates.push(candidateOf(job)));
        }
        const unknownIds = missing.length;
        // Oldest accepted first: the order they were meant to reach the CRM in.
        candidates.sort((a, b) => a.acceptedAt.localeCompare(b.acceptedAt));
        if (options.dryRun)
          return {
            dryRun: true,
            replayed: [] as string[],
            wouldReplay: candidates.map((c) => c.id),
            skipped,
            missing,
            unknownIds,
            errors: [] as { id: string; error: string }[],
          };
        const replayed: string[] = [];
        const errors: { id: string; error: string }[] = [];
        const audit = await auditAction(ctx, open, {
          action: 'replay',
          filter: ids.length > 0 ? { ids } : { ...toFilter(options), ...(options.all ? { all: true } : {}) },
          jobIds: candidates.map((c) => c.id),
        });
        const progress = startProgress({ label: 'replay', total: candidates.length, stream: ctx.stderr });
        try {
          for (const { id } of candidates) {
            const outcome = await replayOne(open, id);
            if (outcome.kind === 'replayed') replayed.push(id);
            else if (outcome.kind === 'missing') missing.push(id);
            else if (outcome.kind === 'skipped') skipped.push({ id, state: outcome.state });
            else errors.push({ id, error: outcome.error });
            progress.tick();
          }
        } catch (err) {
          await audit.complete({
            outcome: 'failed',
            count: replayed.length,
            detail: { error: (err as Error).message },
          });
          throw err;
        } finally {
          progress.stop();
        }
        await audit.complete({
          outcome: errors.length === 0 ? 'ok' : replayed.length > 0 ? 'partial' : 'failed',
          count: replayed.length,
          detail: { skipped: skipped.length, missing: missing.length, errors: errors.length },
        });
        return { dryRun: false, replayed, skipped, missing, unknownIds, errors };
      });
      const { errors } = result;
      // 1 for a job that could not be replayed, and for an id asked for that names nothing (docs/operations.md#the-ops-cli:
      // nothing found); a job a concurrent purge took between the listing and its replay is only counted missing.
      if (errors.length > 0 || result.unknownIds > 0) process.exitCode = 1;
      const summary = {
        replayed: result.replayed.length,
        skipped: result.skipped.length,
        missing: result.missing.length,
        errors: errors.length,
      };
      if (options.json)
        return printJson(ctx, {
          dryRun: result.dryRun,
          ...summary,
          ...(result.dryRun ? { wouldReplay: (result as { wouldReplay: string[] }).wouldReplay } : {}),
          ids: { replayed: result.replayed, skipped: result.skipped, missing: result.missing, errors },
        });
      if (result.dryRun) {
        const would = (result as { wouldReplay: string[] }).wouldReplay;
        print(ctx, `dry run: would replay ${would.length}, skip ${summary.skipped}, ${summary.missing} missing`);
        for (const id of would.slice(0, 20)) print(ctx, `  ${id}`);
        if (would.length > 20) print(ctx, `  … and ${would.length - 20} more`);
        return;
      }
      print(
        ctx,
        `replayed ${summary.replayed}, skipped ${summary.skipped}, missing ${summary.missing}, errors ${summary.errors}`,
      );
      for (const { id, state } of result.skipped) print(ctx, `  skipped ${id}: ${state}, not failed`);
      for (const id of result.missing) print(ctx, `  missing ${id}: no such submission in the queue`);
      for (const { id, error } of errors) print(ctx, `  error ${id}: ${error}`);
    });
}

function candidateOf(job: Job): Candidate {
  return { id: String(job.id), acceptedAt: (job.data as { acceptedAt?: string })?.acceptedAt ?? '' };
}

/** One job back to waiting, only if it is still failed: a concurrent replay or purge makes it a skip. */
type Outcome =
  | { kind: 'replayed' }
  | { kind: 'missing' }
  | { kind: 'skipped'; state: string }
  | { kind: 'error'; error: string };

async function replayOne({ queue, redis }: OpenQueue, id: string): Promise<Outcome> {
  const job = await queue.getJob(id);
  if (!job) return { kind: 'missing' };
  // The replayed attempt joins the submission's own trace (BullMQ keeps its context in the job); this
  // span, in the ops run's trace, links to it.
  const link = jobTraceLink(job.opts.telemetry?.metadata);
  // Read before the retry resets it: the attempts of the run that failed.
  const attemptsMade = job.attemptsMade;
  return withSpan('ops.replay', { links: [link], attributes: { 'submission.id': id } }, async () => {
    const outcome = await retryFailed(job);
    // Only the replay that moved it counts its run (a concurrent one is a skip).
    if (outcome.kind === 'replayed') await recordReplay(redis, queue, job, attemptsMade);
    return outcome;
  });
}

async function retryFailed(job: Job): Promise<Outcome> {
  try {
    // Set while the job is still failed (BullMQ keeps it on the job), so the retry puts it straight among the
    // prioritized jobs: it is never in the fresh lane, even for a moment.
    await job.changePriority({ priority: REPLAY_PRIORITY });
    await job.retry('failed', { resetAttemptsMade: true, resetAttemptsStarted: true });
    return { kind: 'replayed' };
  } catch (err) {
    const state = await job.getState().catch(() => 'unknown');
    return state === 'failed' ? { kind: 'error', error: (err as Error).message } : { kind: 'skipped', state };
  }
}
