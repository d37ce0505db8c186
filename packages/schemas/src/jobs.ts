import * as v from 'valibot';
import { CareersApplyRequestSchema } from './careers-apply.ts';
import { ContactUpdateRequestSchema } from './contact-update.ts';
import { ContactRequestSchema } from './contact.ts';
import { CreatorSignupRequestSchema } from './creator-signup.ts';
import { PartnerWebinarRequestSchema } from './partner-webinar.ts';
import { StagedCvSchema } from './staged-cv.ts';
import type { SubmissionKind } from './submissions.ts';
import { UsaSignupRequestSchema } from './usa-signup.ts';
import { EmailOnlyWorkSignupRequestSchema, WorkEmailSignupRequestSchema } from './work-email-signup.ts';

/** The BullMQ queue both apps use unless QUEUE_NAME says otherwise. */
export const DEFAULT_QUEUE_NAME = 'submissions';

/**
 * A CV's bytes never travel in a job: careers jobs carry the application without `cvFile`, and at most a
 * reference to the copy the gateway staged in object storage. Both added fields are optional, so
 * careers-apply.v1 jobs queued before they existed still parse (no new versioned name needed).
 */
export const CareersApplyJobDataSchema = v.object({
  ...v.omit(CareersApplyRequestSchema, ['cvFile']).entries,
  stagedCv: v.optional(StagedCvSchema),
  cvUploadFailed: v.optional(
    v.pipe(v.boolean(), v.description('A CV was sent and passed its checks but could not be kept; the application stands')),
  ),
});

function jobSchema<const K extends SubmissionKind, D extends v.GenericSchema>(kind: K, data: D) {
  return v.object({
    v: v.literal(1),
    submissionId: v.pipe(v.string(), v.minLength(1), v.description("The submission's own id; the job's key")),
    recordId: v.pipe(v.string(), v.minLength(1), v.description('The recordId answered to the client')),
    kind: v.literal(kind),
    acceptedAt: v.pipe(v.string(), v.isoTimestamp(), v.description('When the gateway accepted it')),
    data,
  });
}

/**
 * The job catalog shared by gateway and worker: job name → payload schema. A payload change gets a new
 * versioned name (`contact.v2`) so jobs already queued keep their handler.
 */
export const JOBS = {
  'contact.v1': jobSchema('contact', ContactRequestSchema),
  'contact-update.v1': jobSchema('contact-update', ContactUpdateRequestSchema),
  'cpa-signup.v1': jobSchema('cpa-signup', WorkEmailSignupRequestSchema),
  'caf-signup.v1': jobSchema('caf-signup', EmailOnlyWorkSignupRequestSchema),
  'cdg-signup.v1': jobSchema('cdg-signup', EmailOnlyWorkSignupRequestSchema),
  'sfa-signup.v1': jobSchema('sfa-signup', WorkEmailSignupRequestSchema),
  'rebriefing-signup.v1': jobSchema('rebriefing-signup', WorkEmailSignupRequestSchema),
  'usa-signup.v1': jobSchema('usa-signup', UsaSignupRequestSchema),
  'creator-signup.v1': jobSchema('creator-signup', CreatorSignupRequestSchema),
  'careers-apply.v1': jobSchema('careers-apply', CareersApplyJobDataSchema),
  'partner-webinar.v1': jobSchema('partner-webinar', PartnerWebinarRequestSchema),
} as const satisfies Record<`${SubmissionKind}.v1`, v.GenericSchema>;

export type JobName = keyof typeof JOBS;
export type JobPayload<N extends JobName = JobName> = v.InferOutput<(typeof JOBS)[N]>;

export function jobNameFor<K extends SubmissionKind>(kind: K): `${K}.v1` {
  return `${kind}.v1`;
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
  { baseDelayMs = RETRY_POLICY.baseDelayMs, maxDelayMs = RETRY_POLICY.maxDelayMs }: { baseDelayMs?: number; maxDelayMs?: number } = {},
  random: () => number = Math.random,
): number {
  const step = Math.min(maxDelayMs, baseDelayMs * 2 ** Math.max(0, attemptsMade - 1));
  return Math.round(step / 2 + random() * (step / 2));
}

/** BullMQ options every submission job is added with. */
export const JOB_OPTIONS = {
  attempts: RETRY_POLICY.attempts,
  backoff: { type: RETRY_POLICY.backoffType },
  // Completed jobs are evidence for a day, then go; failed jobs stay until ops replay or remove them.
  removeOnComplete: { age: 24 * 3600, count: 50_000 },
  removeOnFail: false,
} as const;
