import { scrubPii } from '@forms/observability';
import type { Job } from 'bullmq';
import { errorGroup, failureCode } from './failure-code.ts';

export type FailedJobRow = {
  id: string;
  recordId: string | undefined;
  kind: string | undefined;
  failedAt: string | undefined;
  ageSeconds: number | undefined;
  attempts: number;
  status: number | undefined;
  code: string | undefined;
  /** Grouping key of the per-error count. */
  errorGroup: string;
  /** The last error's first line, cut; personal data scrubbed (CRM messages can quote values). */
  error: string;
};

export function failedJobRow(job: Job, now = Date.now()): FailedJobRow {
  const data = job.data as { recordId?: string; kind?: string; data?: unknown };
  const reason = scrubPii(job.failedReason ?? '', data?.data);
  const { status, code } = failureCode(reason);
  return {
    id: String(job.id),
    recordId: data?.recordId,
    kind: data?.kind,
    failedAt: job.finishedOn ? new Date(job.finishedOn).toISOString() : undefined,
    ageSeconds: job.finishedOn ? Math.round((now - job.finishedOn) / 1000) : undefined,
    attempts: job.attemptsMade,
    status,
    code,
    errorGroup: errorGroup(reason),
    error: cut(reason.split('\n')[0] ?? '', 120),
  };
}

function cut(text: string, max: number): string {
  return text.length > max ? `${text.slice(0, max - 1)}…` : text;
}

/** `93` → `1m33s`: ages as an operator reads them. */
export function formatAge(seconds: number | undefined): string {
  if (seconds === undefined) return '?';
  if (seconds < 60) return `${seconds}s`;
  if (seconds < 3600) return `${Math.floor(seconds / 60)}m${String(seconds % 60).padStart(2, '0')}s`;
  if (seconds < 86_400)
    return `${Math.floor(seconds / 3600)}h${String(Math.floor((seconds % 3600) / 60)).padStart(2, '0')}m`;
  return `${Math.floor(seconds / 86_400)}d${String(Math.floor((seconds % 86_400) / 3600)).padStart(2, '0')}h`;
}
