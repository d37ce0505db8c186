import { SUBMISSION_ENDPOINTS } from './submission-endpoints.ts';

export { SUBMISSION_ENDPOINTS };

export type SubmissionEndpoint = (typeof SUBMISSION_ENDPOINTS)[number];
export type SubmissionKind = SubmissionEndpoint['kind'];
export const SUBMISSION_KINDS = SUBMISSION_ENDPOINTS.map((e) => e.kind) as SubmissionKind[];

const BY_KIND = new Map<string, SubmissionEndpoint>(SUBMISSION_ENDPOINTS.map((e) => [e.kind, e]));

/** The endpoint a kind of submission comes from: its facts (contact or not, email field, …) live there. */
export function endpointFor<K extends SubmissionKind>(kind: K): Extract<SubmissionEndpoint, { kind: K }> {
  return BY_KIND.get(kind) as Extract<SubmissionEndpoint, { kind: K }>;
}

/** The contact kinds: their recordId is the contact id, and their writes merge into one contact per email. */
export type ContactKind = Extract<SubmissionEndpoint, { contact: true }>['kind'];
export function isContactKind(kind: SubmissionKind): kind is ContactKind {
  return endpointFor(kind).contact;
}

/** The email a submission is keyed by, as its endpoint names it (lower-cased by the gateway, once). */
export function submissionEmail(submission: { kind: SubmissionKind; data: object }): string {
  const value = (submission.data as Record<string, unknown>)[endpointFor(submission.kind).emailField];
  return typeof value === 'string' ? value : '';
}
