import { type JobPayload, type SubmissionKind, spamReasonLabel } from '@forms/schemas';

// Which kinds are contacts and which field holds the email are facts of SUBMISSION_ENDPOINTS.
export { isContactKind, submissionEmail } from '@forms/schemas';

/**
 * A careers CV kept in object storage, as a CRM links it. `key` is what a store keeps; `url` is a GET URL
 * presigned for a short while (made when the job runs) for a CRM that copies attachments by URL; `sha256`
 * (hex), `size` (bytes) and `contentType` describe the exact bytes the applicant sent.
 */
export type DeliveredCv = {
  bucket: string;
  key: string;
  filename: string;
  contentType: string;
  size: number;
  sha256: string;
  url: string;
  urlExpiresAt: string;
};

/** What a CRM receives: the job's payload, plus the stored CV when the submission had one kept. */
export type DeliveredSubmission = JobPayload & { cv?: DeliveredCv };

/** What a CRM driver keeps of one delivered submission: its own record id, beside ours. */
export type DeliveryResult = { crmRecordId: string };

/** A person to erase: the lower-cased address, and every submission id the queue still knew for it. */
export type ErasureTarget = { email: string; submissionIds: readonly string[] };

export type ErasedRecords = {
  records: number;
  submissionIds: string[];
  /** How many of the records name a CV object (erase needs the bucket when any does). */
  cvRecords: number;
};

/**
 * The one interface every CRM driver implements. `deliver` must be an idempotent upsert keyed by
 * something stable (the email for contact kinds, the submission id for the rest): a retry, a stalled job
 * run twice or a replay updates instead of duplicating. It throws `PermanentCrmError` for a failure no
 * retry can fix; any other error is retried with backoff.
 */
export type Crm = {
  name: string;
  deliver(submission: DeliveredSubmission): Promise<DeliveryResult>;
  /**
   * Every record of the person: those holding the address (any table) and those of the given submission
   * ids. Counts them with `dryRun`, else deletes them; answers how many, and the submission ids they had
   * (so the CV objects of submissions the queue no longer holds are found too).
   */
  erase(target: ErasureTarget, options: { dryRun: boolean }): Promise<ErasedRecords>;
  /** Clears the CV link (key, file, description) of these submissions' records; answers how many changed. */
  clearCvLinks(submissionIds: readonly string[]): Promise<number>;
  /**
   * Marks the records of these delivered submissions as spam (`ops spam mark`): a field set, nothing deleted;
   * for a contact, the contact's record. Twice is harmless. Answers the submission ids whose record was found
   * and is now marked (a submission not delivered yet, or erased, has none).
   */
  markSpam(submissions: readonly SpamMarkTarget[]): Promise<string[]>;
  close(): Promise<void>;
};

/** A delivered submission to mark as spam: its id, its kind, and its (lower-cased) address, which contacts merge on. */
export type SpamMarkTarget = { submissionId: string; kind: SubmissionKind; email: string };

/**
 * What a CRM records of a delivered submission's spam verdict, the same in every driver: the content filter's
 * score (null when it abstained) and the labels of the reasons that flagged it without holding it. Undefined
 * for a submission queued unjudged (by a gateway before judgements travelled, or released from the
 * quarantine): a CRM then leaves its fields as they are.
 */
export function deliveredSpamVerdict(
  submission: Pick<JobPayload, 'judgement'>,
): { score: number | null; reasons: string[] } | undefined {
  const { judgement } = submission;
  if (!judgement) return undefined;
  return { score: judgement.score ?? null, reasons: judgement.reasons.map(spamReasonLabel) };
}

/** A failure a retry cannot fix (the CRM rejected the record); the job fails at once. */
export class PermanentCrmError extends Error {
  override name = 'PermanentCrmError';
}

/**
 * A submission's place in acceptance order, as text that sorts in that order: the acceptance time in
 * milliseconds, zero-padded, then the submission id, which breaks ties (ids are ULIDs, sortable by time
 * too). Both drivers compare these to keep "newer wins, per contact": a field set by a write with a
 * greater stamp is never overwritten by a write with a smaller one, whatever order they arrive in.
 */
export function acceptanceStamp(submission: Pick<JobPayload, 'acceptedAt' | 'submissionId'>): string {
  const ms = Date.parse(submission.acceptedAt);
  return `${String(Number.isNaN(ms) ? 0 : ms).padStart(15, '0')}|${submission.submissionId}`;
}
