import type { Job } from 'bullmq';
import { failureCode } from './failure-code.ts';

/** The filters `failed`, `replay` and `purge` share. Times are epoch ms, compared with when the job failed. */
export type JobFilter = {
  kind?: string | undefined;
  error?: string | undefined;
  code?: string | undefined;
  since?: number | undefined;
  until?: number | undefined;
};

export function matchesFilter(job: Job, filter: JobFilter): boolean {
  const failedAt = job.finishedOn ?? 0;
  if (filter.since !== undefined && failedAt < filter.since) return false;
  if (filter.until !== undefined && failedAt > filter.until) return false;
  if (filter.kind && (job.data as { kind?: string })?.kind !== filter.kind) return false;
  const reason = job.failedReason ?? '';
  if (filter.error && !reason.toLowerCase().includes(filter.error.toLowerCase())) return false;
  if (filter.code) {
    const { status, code } = failureCode(reason);
    const wanted = filter.code.toUpperCase();
    if (String(status) !== wanted && code !== wanted) return false;
  }
  return true;
}
