import * as v from 'valibot';
import { type JudgeInputOnJob, JudgeInputSchema } from './judge-input.ts';
import { type SpamJudgement, SpamJudgementSchema } from './spam-judgement.ts';
import { SUBMISSION_ENDPOINTS, type SubmissionEndpoint, type SubmissionKind } from './submissions.ts';

/** Longest X-Request-Id the gateway honours (and so carries in a job). */
export const REQUEST_ID_MAX_LENGTH = 64;

/** The BullMQ queue both apps use unless QUEUE_NAME says otherwise. */
export const DEFAULT_QUEUE_NAME = 'submissions';

function jobSchema<const K extends SubmissionKind, D extends v.GenericSchema>(kind: K, data: D) {
  return v.object({
    v: v.literal(1),
    submissionId: v.pipe(v.string(), v.minLength(1), v.description("The submission's own id; the job's key")),
    recordId: v.pipe(v.string(), v.minLength(1), v.description('The recordId answered to the client')),
    kind: v.literal(kind),
    acceptedAt: v.pipe(v.string(), v.isoTimestamp(), v.description('When the gateway accepted it')),
    // Optional, so jobs queued before it existed still parse (no new versioned name needed).
    requestId: v.optional(
      v.pipe(v.string(), v.maxLength(REQUEST_ID_MAX_LENGTH), v.description("The gateway request's X-Request-Id")),
    ),
    data,
    // Optional, so jobs queued before they existed still parse. `judge`: what the worker's judge needs, on a
    // job not judged yet; `judgement`: the verdict of one judged and not held (without the client's address).
    judge: v.optional(JudgeInputSchema),
    judgement: v.optional(SpamJudgementSchema),
  });
}

type EndpointOf<K extends SubmissionKind> = Extract<SubmissionEndpoint, { kind: K }>;
type KindOf<N extends JobName> = N extends `${infer K extends SubmissionKind}.v1` ? K : never;

export type JobName = `${SubmissionKind}.v1`;
/** What a job of kind `K` carries as `data`: the request as parsed, or the endpoint's own job shape. */
export type JobData<K extends SubmissionKind = SubmissionKind> = v.InferOutput<EndpointOf<K>['jobData']>;
/** The envelope every job shares, whatever its kind. */
export type JobIds = { submissionId: string; recordId: string; acceptedAt: string; requestId?: string };
/**
 * A job's payload. Written as a map over kinds so `toJobPayload` builds one for a generic kind without a
 * cast; `types.test-d.ts` checks it equals what the catalog's schema parses to.
 */
export type JobPayload<K extends SubmissionKind = SubmissionKind> = {
  [P in K]: {
    v: 1;
    submissionId: string;
    recordId: string;
    kind: P;
    acceptedAt: string;
    requestId?: string | undefined;
    data: JobData<P>;
    judge?: JudgeInputOnJob | undefined;
    judgement?: SpamJudgement | undefined;
  };
}[K];
export type JobCatalog = {
  [N in JobName]: ReturnType<typeof jobSchema<KindOf<N>, EndpointOf<KindOf<N>>['jobData']>>;
};

/**
 * The job catalog shared by gateway and worker: job name → payload schema, made from SUBMISSION_ENDPOINTS
 * (nothing restates a kind → schema pair). A payload change gets a new versioned name (`contact.v2`) so
 * jobs already queued keep their handler.
 */
export const JOBS = Object.fromEntries(
  SUBMISSION_ENDPOINTS.map((endpoint) => [jobNameFor(endpoint.kind), jobSchema(endpoint.kind, endpoint.jobData)]),
) as JobCatalog;

export function jobNameFor<K extends SubmissionKind>(kind: K): `${K}.v1` {
  return `${kind}.v1`;
}

/** The one way a job payload is made: typed by kind, so the gateway needs no cast at the queue boundary. */
export function toJobPayload<K extends SubmissionKind>(kind: K, data: JobData<K>, ids: JobIds): JobPayload<K> {
  return { v: 1, kind, data, ...ids };
}

/**
 * Retry policy of every submission job. 14 attempts with delays doubling from 5 s to a 1 h cap and "equal
 * jitter" (each delay is between half and all of its step): the schedule spans about 2.2 to 4.4 hours (15,915 s at most)
 * before a job rests in the failed set, long enough to ride out a CRM outage of an afternoon.
 */
export const RETRY_POLICY = {
  attempts: 14,
  baseDelayMs: 5_000,
  maxDelayMs: 60 * 60_000,
  backoffType: 'jittered-exponential',
} as const;

/** Delay before retry number `attemptsMade` (1 after the first failure). */
export function retryDelay(
  attemptsMade: number,
  {
    baseDelayMs = RETRY_POLICY.baseDelayMs,
    maxDelayMs = RETRY_POLICY.maxDelayMs,
  }: { baseDelayMs?: number; maxDelayMs?: number } = {},
  random: () => number = Math.random,
): number {
  const step = Math.min(maxDelayMs, baseDelayMs * 2 ** Math.max(0, attemptsMade - 1));
  return Math.round(step / 2 + random() * (step / 2));
}

/**
 * The BullMQ priority `ops replay` gives a job before moving it back from the failed set. Fresh submissions
 * have none, and BullMQ hands a worker every job without a priority (its wait list) before any prioritized
 * one: so a replay of any size waits behind the site's new submissions instead of in front of them. Within
 * one priority BullMQ keeps the order jobs were added in (replay adds oldest accepted first).
 */
export const REPLAY_PRIORITY = 1_000;

/**
 * BullMQ options every submission job is added with: only what BullMQ must read from the job itself (its
 * retries). The add packs them (msgpack) on every submission, at a cost that grows with each key and nested
 * object (about 3 k instructions a key): what the worker keeps of finished jobs is the worker's own option
 * (`KEEP_COMPLETED`), and the bound of a job's log is given by whoever writes a line to it (`JOB_LOG_ROWS`).
 */
export const JOB_OPTIONS = {
  attempts: RETRY_POLICY.attempts,
  backoff: { type: RETRY_POLICY.backoffType },
} as const;

/**
 * The lines a job's own log keeps (the newest): each failed attempt's time and reason, each replay (for `ops
 * show`). Passed by every writer (`Job.addJobLog`), not carried in the job's options.
 */
export const JOB_LOG_ROWS = 20;

/**
 * What the worker keeps of completed jobs (BullMQ's worker-level `removeOnComplete`, applied to every job that
 * names none): evidence for a day, at most 50,000. Failed jobs stay until ops replay or remove them (the
 * worker's default).
 */
export const KEEP_COMPLETED = { age: 24 * 3600, count: 50_000 } as const;
