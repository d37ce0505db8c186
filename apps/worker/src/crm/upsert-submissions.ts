import type { Database } from '../db/database.ts';
import {
  acceptanceStamp,
  type DeliveredSubmission,
  deliveredSpamVerdict,
  isContactKind,
  submissionEmail,
} from './crm.ts';

/**
 * The one statement that writes a batch of submissions, atomically (a statement is its own transaction):
 * where the exactly-once and newer-wins rules of the Postgres store live.
 *
 * - `submissions` gets one row per submission, keyed by its id, inserted first: a submission the store
 *   already holds (a retry, a stalled job run twice, a replay, or a client's retry accepted anew after a
 *   failover, which carries the same id) changes nothing, its contact merge included. Only the rows this
 *   statement inserted (its RETURNING) go on to `contacts`; the same id twice in a batch counts once (the
 *   first to arrive).
 * - Contact kinds merge into `contacts`, keyed by the email, field by field: a field is written when no
 *   newer write set it (`field_stamps`, "<=": the same write again changes nothing). Writes for the same
 *   email in one batch are merged first (per field, the newest write's value), because ON CONFLICT may not
 *   touch one row twice in a statement; a new contact keeps the id of the batch's first write for it.
 * - Rows are inserted in key order, so two batches (of this process or another) never wait on each other's
 *   locks in opposite orders.
 *
 * Answers each submission's CRM record id, in order: for contact kinds the stored contact's id (the id it
 * was first stored with; its own record id when no contact row is found), for the rest its own record id.
 */
export async function upsertSubmissions(db: Pick<Database, 'query'>, submissions: readonly DeliveredSubmission[]) {
  const rows = submissions.map((submission, n) => ({
    n,
    submission_id: submission.submissionId,
    record_id: submission.recordId,
    kind: submission.kind,
    email: submissionEmail(submission),
    contact: isContactKind(submission.kind),
    data: submission.data,
    accepted_at: submission.acceptedAt,
    stamp: acceptanceStamp(submission),
    ...spamColumns(submission),
    ...cvColumns(submission),
  }));
  const { rows: contacts } = await db.query<{ id: string; email: string }>(
    `WITH input AS (
       SELECT DISTINCT ON (submission_id) * FROM jsonb_to_recordset($1::jsonb) AS i(
         n int, submission_id text, record_id text, kind text, email text, contact boolean, data jsonb,
         accepted_at timestamptz, stamp text, cv_key text, cv_filename text, cv_content_type text, cv_size int,
         cv_sha256 text, cv_upload_failed boolean, judged boolean, spam_score float8, spam_reasons text[])
       ORDER BY submission_id, n
     ),
     stored AS (
       INSERT INTO submissions (id, record_id, kind, email, payload, accepted_at,
                                cv_key, cv_filename, cv_content_type, cv_size, cv_sha256, cv_upload_failed,
                                spam_score, spam_reasons)
       SELECT submission_id, record_id, kind, email, data, accepted_at,
              cv_key, cv_filename, cv_content_type, cv_size, cv_sha256, cv_upload_failed,
              spam_score, spam_reasons
       FROM input ORDER BY submission_id COLLATE "C"
       ON CONFLICT (id) DO NOTHING
       RETURNING id
     ),
     fresh AS (SELECT i.* FROM input i JOIN stored s ON s.id = i.submission_id WHERE i.contact),
     newest AS (
       SELECT DISTINCT ON (i.email, f.key) i.email, f.key, f.value, i.stamp
       FROM fresh i, jsonb_each(i.data) f
       ORDER BY i.email, f.key, i.stamp COLLATE "C" DESC
     ),
     spam AS (
       SELECT DISTINCT ON (email) email, spam_score, spam_reasons, stamp
       FROM fresh WHERE judged ORDER BY email, stamp COLLATE "C" DESC
     ),
     merged AS (
       SELECT i.email, (array_agg(i.record_id ORDER BY i.n))[1] AS id,
              (SELECT s.spam_score FROM spam s WHERE s.email = i.email) AS spam_score,
              (SELECT s.spam_reasons FROM spam s WHERE s.email = i.email) AS spam_reasons,
              (SELECT s.stamp FROM spam s WHERE s.email = i.email) AS spam_stamp,
              min(i.accepted_at) AS first_at, max(i.accepted_at) AS last_at,
              (SELECT coalesce(jsonb_object_agg(key, value), '{}') FROM newest f WHERE f.email = i.email) AS fields,
              (SELECT coalesce(jsonb_object_agg(key, stamp), '{}') FROM newest f WHERE f.email = i.email) AS stamps
       FROM fresh i GROUP BY i.email
     ),
     contact AS (
       INSERT INTO contacts (id, email, fields, field_stamps, first_accepted_at, last_accepted_at,
                             spam_score, spam_reasons, spam_stamp)
       SELECT id, email, fields, stamps, first_at, last_at, spam_score, spam_reasons, spam_stamp
       FROM merged ORDER BY email COLLATE "C"
       ON CONFLICT (email) DO UPDATE SET
         fields = contacts.fields || (
           SELECT coalesce(jsonb_object_agg(f.key, f.value), '{}') FROM jsonb_each(excluded.fields) f
           WHERE coalesce(contacts.field_stamps ->> f.key, '') COLLATE "C"
                   <= (excluded.field_stamps ->> f.key) COLLATE "C"),
         field_stamps = contacts.field_stamps || (
           SELECT coalesce(jsonb_object_agg(s.key, s.value), '{}') FROM jsonb_each(excluded.field_stamps) s
           WHERE coalesce(contacts.field_stamps ->> s.key, '') COLLATE "C" <= (s.value #>> '{}') COLLATE "C"),
         first_accepted_at = LEAST(contacts.first_accepted_at, excluded.first_accepted_at),
         last_accepted_at = GREATEST(contacts.last_accepted_at, excluded.last_accepted_at),
         spam_score = CASE WHEN ${NEWER_SPAM} THEN excluded.spam_score ELSE contacts.spam_score END,
         spam_reasons = CASE WHEN ${NEWER_SPAM} THEN excluded.spam_reasons ELSE contacts.spam_reasons END,
         spam_stamp = CASE WHEN ${NEWER_SPAM} THEN excluded.spam_stamp ELSE contacts.spam_stamp END,
         updated_at = now()
       RETURNING id, email
     )
     SELECT id, email FROM contact
     UNION ALL -- the contacts of submissions already held, as they were
     SELECT c.id, c.email FROM contacts c
     WHERE c.email IN (SELECT email FROM input WHERE contact) AND c.email NOT IN (SELECT email FROM contact)`,
    [JSON.stringify(rows)],
  );
  const contactIds = new Map(contacts.map((c) => [c.email, c.id]));
  return rows.map((row) => (row.contact ? (contactIds.get(row.email) ?? row.record_id) : row.record_id));
}

/**
 * A contact's spam score and reasons are its latest judged submission's: written when this statement brings
 * a judged one newer than the one that set them (an unjudged submission, queued before judgements travelled
 * or released from the quarantine, leaves them as they are).
 */
const NEWER_SPAM = `excluded.spam_stamp IS NOT NULL
  AND coalesce(contacts.spam_stamp, '') COLLATE "C" <= excluded.spam_stamp COLLATE "C"`;

/** The spam columns of a submissions row (`judged` false: a contact's are left as they are). */
function spamColumns(submission: DeliveredSubmission) {
  const verdict = deliveredSpamVerdict(submission);
  return { judged: verdict !== undefined, spam_score: verdict?.score ?? null, spam_reasons: verdict?.reasons ?? null };
}

/** The CV columns of a submissions row: the stored object's key and description, or NULLs. */
function cvColumns(submission: DeliveredSubmission) {
  const { cv } = submission;
  const failed = submission.kind === 'careers-apply' && submission.data.cvUploadFailed === true;
  return {
    cv_key: cv?.key ?? null,
    cv_filename: cv?.filename ?? null,
    cv_content_type: cv?.contentType ?? null,
    cv_size: cv?.size ?? null,
    cv_sha256: cv?.sha256 ?? null,
    cv_upload_failed: cv ? false : failed,
  };
}
