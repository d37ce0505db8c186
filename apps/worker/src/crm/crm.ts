import type { JobPayload } from '@forms/schemas';

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

/**
 * The one interface every CRM driver implements. `deliver` must be an idempotent upsert keyed by
 * something stable (the email for contact kinds, the submission id for the rest): a retry, a stalled job
 * run twice or a replay updates instead of duplicating. It throws `PermanentCrmError` for a failure no
 * retry can fix; any other error is retried with backoff.
 */
export type Crm = {
  name: string;
  deliver(submission: DeliveredSubmission): Promise<DeliveryResult>;
  close(): Promise<void>;
};

/** A failure a retry cannot fix (the CRM rejected the record); the job fails at once. */
export class PermanentCrmError extends Error {
  override name = 'PermanentCrmError';
}

/** The contact kinds: their recordId is the contact id, and they merge into one contact per email. */
export function isContactKind(kind: JobPayload['kind']): kind is 'contact' | 'contact-update' {
  return kind === 'contact' || kind === 'contact-update';
}

/** The email a submission is keyed by (partner-webinar names it `workEmail`). */
export function submissionEmail(submission: JobPayload): string {
  const data = submission.data as { email?: string; workEmail?: string };
  return (data.email ?? data.workEmail ?? '').toLowerCase();
}
