import {
  erasureKeys,
  keylessWorkersReason,
  SHARED_SECRETS,
  type SharedSecret,
  secretDiffersReason,
  sharedSecretKeys,
} from '@forms/schemas';
import type { Queue } from 'bullmq';
import { type CliContext, Command, jsonOption, print, printJson, withExitCodes, withQueue } from '../cli-context.ts';
import { formatAge } from '../failed-job-row.ts';
import { readCrmLimits } from '../read-crm-limits.ts';

const STATES = ['waiting', 'prioritized', 'active', 'delayed', 'failed', 'completed'] as const;

/**
 * `ops status`: the queue at a glance. Depth by state, the oldest waiting job's age, the CRM's shared
 * rate-limit state, throughput over the last minute (from BullMQ's own metrics, which the worker keeps),
 * the time the backlog needs at that pace, whether deliveries are held (workers without ERASURE_KEY while
 * an erasure is recorded, or with one that differs from the recorded one), and, per shared secret, whether
 * its check value is recorded and how many processes hold another one.
 */
export function statusCommand(ctx: CliContext): Command {
  return withExitCodes(new Command('status'), { ok: 'shown', failed: 'Redis unreachable' })
    .description('queue depth by state, oldest waiting job, CRM rate-limit state, throughput, drain time')
    .addOption(jsonOption())
    .action(async (options: { json?: boolean }) => {
      const now = ctx.now();
      const config = ctx.config();
      const status = await withQueue(ctx, async ({ queue, redis }) => {
        const [counts, oldest, throughput, crm, workers, keylessWorkers] = await Promise.all([
          queue.getJobCounts(...STATES),
          queue.getJobs(['wait'], 0, 0, true),
          completedPerMinute(queue, now),
          readCrmLimits(redis, config.airtableBaseId, now),
          queue.getWorkersCount(),
          redis.zcount(erasureKeys(config.redis, config.queueName).keylessWorkers, now, '+inf'),
        ]);
        const secrets = Object.fromEntries(
          await Promise.all(
            SHARED_SECRETS.map(async (variable) => {
              const keys = sharedSecretKeys(config.redis, config.queueName, variable);
              const [recorded, differing] = await Promise.all([
                redis.exists(keys.check),
                redis.zcount(keys.differing, now, '+inf'),
              ]);
              return [variable, { recorded: recorded === 1, differing }] as const;
            }),
          ),
        ) as Record<SharedSecret, { recorded: boolean; differing: number }>;
        const heldBy = [
          ...(keylessWorkers > 0 ? [keylessWorkersReason(keylessWorkers)] : []),
          ...(secrets.ERASURE_KEY.differing > 0
            ? [secretDiffersReason('ERASURE_KEY', `${secrets.ERASURE_KEY.differing} worker(s)`)]
            : []),
        ];
        const backlog =
          (counts.waiting ?? 0) + (counts.prioritized ?? 0) + (counts.active ?? 0) + (counts.delayed ?? 0);
        const oldestAccepted = oldest[0]?.timestamp;
        return {
          queue: config.queueName,
          counts,
          workers,
          deliveries: (heldBy.length > 0 ? { status: 'held', reason: heldBy.join('; ') } : { status: 'ok' }) as {
            status: 'ok' | 'held';
            reason?: string;
          },
          secrets,
          oldestWaitingSeconds: oldestAccepted ? Math.round((now - oldestAccepted) / 1000) : undefined,
          throughput,
          backlog,
          drainSeconds:
            backlog === 0
              ? 0
              : throughput.completedPerMinute > 0
                ? Math.round((backlog / throughput.completedPerMinute) * 60)
                : undefined,
          crm,
        };
      });
      if (options.json) return printJson(ctx, status);
      print(ctx, `queue ${status.queue}: ${status.workers} worker connection(s)`);
      print(ctx, `  ${STATES.map((s) => `${s} ${status.counts[s] ?? 0}`).join(', ')}`);
      if (status.deliveries.reason) print(ctx, `  deliveries HELD: ${status.deliveries.reason}`);
      print(
        ctx,
        `  shared secrets: ${SHARED_SECRETS.map((variable) => {
          const { recorded, differing } = status.secrets[variable];
          return `${variable} ${recorded ? 'recorded' : 'not recorded yet'}${differing > 0 ? `, DIFFERS in ${differing} process(es)` : ''}`;
        }).join('; ')}`,
      );
      if (status.secrets.ID_KEY.differing > 0)
        print(
          ctx,
          `  gateways NOT READY: ${secretDiffersReason('ID_KEY', `${status.secrets.ID_KEY.differing} gateway(s)`)}`,
        );
      print(
        ctx,
        `  oldest waiting: ${status.oldestWaitingSeconds === undefined ? 'none' : formatAge(status.oldestWaitingSeconds)}`,
      );
      print(
        ctx,
        `  throughput: ${status.throughput.completedPerMinute} delivered/min, ${status.throughput.failedPerMinute} failed/min`,
      );
      print(
        ctx,
        `  drain: ${status.drainSeconds === undefined ? 'unknown (nothing delivered in the last minute)' : formatAge(status.drainSeconds)} for ${status.backlog} queued`,
      );
      const crm = status.crm;
      if (crm.crm === 'unknown') return print(ctx, `  crm: ${crm.note}`);
      print(
        ctx,
        `  airtable ${crm.baseId}: ${crm.paused ? `PAUSED${crm.pausedUntil ? ` until ${crm.pausedUntil}` : ''}` : 'sending'}; ${crm.requestsLastMinute} requests in the last minute; ${crm.rateLimitedTotal} 429s counted`,
      );
      if (crm.fault)
        print(
          ctx,
          `    Airtable answers ${crm.fault.status} ${crm.fault.type} since ${crm.fault.since}: fix ${crm.fault.variable}; jobs wait, nothing is failed`,
        );
      for (const [key, value] of Object.entries(crm.other)) print(ctx, `    ${key} = ${value}`);
    });
}

/**
 * Jobs per minute from BullMQ's metrics (the worker runs with `metrics` on): the last full minute plus
 * the part of this one so far, over the time they span. Zero when nothing finished for two minutes.
 */
async function completedPerMinute(queue: Queue, now: number) {
  const rate = async (type: 'completed' | 'failed') => {
    const { meta, data } = await queue.getMetrics(type, 0, 0);
    if (!meta.prevTS || now - meta.prevTS > 120_000) return 0;
    const sinceRoll = Math.max(0, meta.count - meta.prevCount);
    const spanMs = 60_000 + Math.max(0, now - meta.prevTS);
    return Math.round(((sinceRoll + (data[0] ?? 0)) / spanMs) * 60_000);
  };
  const [completedPerMinute, failedPerMinute] = await Promise.all([rate('completed'), rate('failed')]);
  return { completedPerMinute, failedPerMinute };
}
