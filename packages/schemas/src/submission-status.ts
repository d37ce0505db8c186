import * as v from 'valibot';

/**
 * What support and ops see of one submission (`GET /admin/submissions/:id`, `ops show --json`), read
 * from its BullMQ job. `delivered` is BullMQ's `completed`.
 */
export const SubmissionStateSchema = v.picklist(['waiting', 'active', 'delayed', 'delivered', 'failed', 'unknown']);
export type SubmissionState = v.InferOutput<typeof SubmissionStateSchema>;

export const SubmissionStatusSchema = v.object({
  submissionId: v.string(),
  recordId: v.optional(v.string()),
  kind: v.optional(v.string()),
  state: SubmissionStateSchema,
  attempts: v.pipe(v.number(), v.description('Attempts made so far')),
  lastError: v.optional(v.string()),
  acceptedAt: v.optional(v.string()),
  deliveredAt: v.optional(v.string()),
  failedAt: v.optional(v.string()),
  crmRecordId: v.optional(v.pipe(v.string(), v.description("The CRM's own id of the record, once delivered"))),
  requestId: v.optional(v.string()),
});
export type SubmissionStatus = v.InferOutput<typeof SubmissionStatusSchema>;

/** The fields of a BullMQ job this module reads; structural, so the schemas package needs no BullMQ. */
export type JobFacts = {
  id?: string | undefined;
  data: unknown;
  attemptsMade: number;
  failedReason?: string | undefined;
  finishedOn?: number | undefined;
  timestamp: number;
  returnvalue?: unknown;
};

/** BullMQ's state names → ours. */
export function submissionState(bullState: string): SubmissionState {
  switch (bullState) {
    case 'completed':
      return 'delivered';
    case 'failed':
    case 'active':
    case 'delayed':
      return bullState;
    case 'waiting':
    case 'wait':
    case 'prioritized':
    case 'waiting-children':
    case 'paused':
      return 'waiting';
    default:
      return 'unknown';
  }
}

const iso = (ms: number | undefined) => (ms ? new Date(ms).toISOString() : undefined);

/** A job and its BullMQ state → the status support sees. The error is given as the job holds it. */
export function toSubmissionStatus(job: JobFacts, bullState: string): SubmissionStatus {
  const data = (job.data ?? {}) as { recordId?: string; kind?: string; acceptedAt?: string; requestId?: string };
  const state = submissionState(bullState);
  const crmRecordId = (job.returnvalue as { crmRecordId?: unknown } | null | undefined)?.crmRecordId;
  const status: SubmissionStatus = {
    submissionId: String(job.id),
    recordId: data.recordId,
    kind: data.kind,
    state,
    attempts: job.attemptsMade,
    lastError: job.failedReason || undefined,
    acceptedAt: data.acceptedAt ?? iso(job.timestamp),
    deliveredAt: state === 'delivered' ? iso(job.finishedOn) : undefined,
    failedAt: state === 'failed' ? iso(job.finishedOn) : undefined,
    crmRecordId: typeof crmRecordId === 'string' ? crmRecordId : undefined,
    requestId: data.requestId,
  };
  return Object.fromEntries(Object.entries(status).filter(([, value]) => value !== undefined)) as SubmissionStatus;
}

/**
 * recordId → submission ids, for contacts (whose recordId names the contact, not one submission; every
 * other kind's recordId is its submission id). The worker adds a job's id when it first takes the job, so
 * a contact's submissions are found by recordId once a worker has seen them (at once when the queue is
 * short; in a backlog, once they reach its head); by submission id always.
 *
 * Bounds: the newest `RECORD_INDEX_MAX` submissions per contact, and the key expires `RECORD_INDEX_TTL_MS`
 * after its last write. The key names the queue (hash-tagged, so it sits in one cluster slot with nothing
 * else it needs) and our recordId; never an email.
 */
export const RECORD_INDEX_MAX = 50;
export const RECORD_INDEX_TTL_MS = 30 * 24 * 3600 * 1000;

export function recordIndexKey(queueName: string, recordId: string): string {
  return `forms:{${queueName}}:record-submissions:${recordId}`;
}
