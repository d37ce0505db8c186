import type { Cluster, Redis } from 'ioredis';

/** Job ids kept in one audit entry; the count is always whole. */
export const AUDIT_JOB_IDS_MAX = 1_000;

export type OpsAction = {
  /** Who: OPS_ACTOR, else the OS user; `bull-board` for Bull Board's writes. */
  actor: string;
  /** What: `replay`, `purge`, `spam release`, `spam purge`, `bull-board POST` … */
  action: string;
  /** The filter or target it was given (flags, a path): never a submission's data. */
  filter: Record<string, unknown>;
  /** The jobs it means to act on (submission ids); kept up to AUDIT_JOB_IDS_MAX. */
  jobIds: readonly string[];
};

export type OpsActionOutcome = {
  outcome: 'ok' | 'partial' | 'failed';
  /** How many jobs it changed. */
  count: number;
  /** Anything else worth keeping: counts by result, an error message without data. */
  detail?: Record<string, unknown>;
};

export type RecordedOpsAction = { id: string; complete: (result: OpsActionOutcome) => Promise<void> };

/**
 * Appends a `started` entry for an ops action to the audit stream before the action changes anything, and
 * returns `complete`, which appends its `completed` entry (pointing at the first) afterwards. Entries are
 * immutable, so an action that dies midway leaves a `started` entry with no `completed` one: the trail says
 * so instead of pretending. The stream is capped (`MAXLEN ~ maxEntries`). If the first write fails the
 * action must not run: the error is the caller's.
 */
export async function recordOpsAction(
  redis: Redis | Cluster,
  key: string,
  action: OpsAction,
  { maxEntries }: { maxEntries: number },
): Promise<RecordedOpsAction> {
  const add = (fields: Record<string, string>) =>
    redis.xadd(key, 'MAXLEN', '~', maxEntries, '*', ...Object.entries(fields).flat()) as Promise<string>;
  const id = await add({
    step: 'started',
    actor: action.actor,
    action: action.action,
    filter: JSON.stringify(action.filter),
    count: String(action.jobIds.length),
    jobIds: JSON.stringify(action.jobIds.slice(0, AUDIT_JOB_IDS_MAX)),
  });
  return {
    id,
    async complete({ outcome, count, detail }) {
      await add({
        step: 'completed',
        of: id,
        outcome,
        count: String(count),
        ...(detail ? { detail: JSON.stringify(detail) } : {}),
      });
    },
  };
}
