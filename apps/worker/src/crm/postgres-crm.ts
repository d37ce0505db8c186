import type { Database } from '../db/database.ts';
import {
  acceptanceStamp,
  type Crm,
  type DeliveredSubmission,
  isContactKind,
  PermanentCrmError,
  submissionEmail,
} from './crm.ts';
import { redactValues } from './redact-values.ts';

/**
 * The Postgres CRM: `submissions` gets one row per submission (keyed by its id, so a second delivery is a
 * no-op, the contact's merge included), and contact kinds also merge into `contacts` (keyed by email). When a replay brings an older
 * submission after a newer one, the newer values win field by field and the older only fill gaps.
 */
export function createPostgresCrm(db: Database): Crm {
  return {
    name: db.kind,
    async deliver(submission: DeliveredSubmission) {
      try {
        return await write(submission);
      } catch (err) {
        throw withoutValues(err, submission);
      }
    },
    async erase({ email, submissionIds }, { dryRun }) {
      const ids = [...submissionIds];
      // Every table that holds a person: contacts by the address, submissions by the address or the id.
      const contacts = 'FROM contacts WHERE lower(email) = $1';
      const submissions = 'FROM submissions WHERE lower(email) = $1 OR id = ANY($2::text[])';
      if (dryRun) {
        const counted = await db.query<{ n: number }>(`SELECT count(*)::int AS n ${contacts}`, [email]);
        const rows = await db.query<Erased>(`SELECT id, cv_key ${submissions}`, [email, ids]);
        return erased(counted.rows[0]!.n, rows.rows);
      }
      return db.transaction(async (tx) => {
        const gone = await tx.query(`DELETE ${contacts} RETURNING 1`, [email]);
        const rows = await tx.query<Erased>(`DELETE ${submissions} RETURNING id, cv_key`, [email, ids]);
        return erased(gone.rows.length, rows.rows);
      });
    },
    async clearCvLinks(submissionIds) {
      if (submissionIds.length === 0) return 0;
      const { rows } = await db.query(
        `UPDATE submissions SET cv_key = NULL, cv_filename = NULL, cv_content_type = NULL, cv_size = NULL,
                                cv_sha256 = NULL, payload = payload - 'stagedCv'
           WHERE id = ANY($1::text[]) AND cv_key IS NOT NULL RETURNING 1`,
        [[...submissionIds]],
      );
      return rows.length;
    },
    close: () => db.close(),
  };

  async function write(submission: DeliveredSubmission) {
    const email = submissionEmail(submission);
    return db.transaction(async (tx) => {
      // The submission's row first: a submission the store already holds (a second delivery, or a client's
      // retry accepted anew after a failover, which carries the same id) changes nothing, contacts included.
      const inserted = await tx.query(
        `INSERT INTO submissions (id, record_id, kind, email, payload, accepted_at,
                                    cv_key, cv_filename, cv_content_type, cv_size, cv_sha256, cv_upload_failed)
           VALUES ($1, $2, $3, $4, $5::jsonb, $6, $7, $8, $9, $10, $11, $12)
           ON CONFLICT (id) DO NOTHING RETURNING 1`,
        [
          submission.submissionId,
          submission.recordId,
          submission.kind,
          email,
          JSON.stringify(submission.data),
          submission.acceptedAt,
          ...cvColumns(submission),
        ],
      );
      if (!isContactKind(submission.kind)) return { crmRecordId: submission.recordId };
      if (inserted.rows.length === 0) {
        const { rows } = await tx.query<{ id: string }>('SELECT id FROM contacts WHERE email = $1', [email]);
        return { crmRecordId: rows[0]?.id ?? submission.recordId };
      }
      const { rows } = await tx.query<{ id: string }>(
        // A field is written when no newer write set it ("<=": a replay of the same write changes nothing).
        `WITH sent AS (SELECT key, value FROM jsonb_each($3::jsonb))
         INSERT INTO contacts (id, email, fields, field_stamps, first_accepted_at, last_accepted_at)
         VALUES ($1, $2, $3::jsonb, (SELECT coalesce(jsonb_object_agg(key, $5::text), '{}') FROM sent), $4, $4)
         ON CONFLICT (email) DO UPDATE SET
           fields = contacts.fields || (
             SELECT coalesce(jsonb_object_agg(key, value), '{}') FROM sent
             WHERE coalesce(contacts.field_stamps ->> key, '') COLLATE "C" <= $5::text COLLATE "C"),
           field_stamps = contacts.field_stamps || (
             SELECT coalesce(jsonb_object_agg(key, $5::text), '{}') FROM sent
             WHERE coalesce(contacts.field_stamps ->> key, '') COLLATE "C" <= $5::text COLLATE "C"),
           first_accepted_at = LEAST(contacts.first_accepted_at, excluded.first_accepted_at),
           last_accepted_at = GREATEST(contacts.last_accepted_at, excluded.last_accepted_at),
           updated_at = now()
         RETURNING id`,
        [
          submission.recordId,
          email,
          JSON.stringify(submission.data),
          submission.acceptedAt,
          acceptanceStamp(submission),
        ],
      );
      return { crmRecordId: rows[0]!.id };
    });
  }
}

type Erased = { id: string; cv_key: string | null };

function erased(contacts: number, submissions: Erased[]) {
  return {
    records: contacts + submissions.length,
    submissionIds: submissions.map((r) => r.id),
    cvRecords: submissions.filter((r) => r.cv_key !== null).length,
  };
}

/**
 * The error as the worker may log and keep it: the message with the submission's values redacted, and
 * the SQLSTATE `code`, but none of Postgres' `detail`, `where` or `internalQuery`, which quote the input
 * (a refused JSON document's `where` starts with the email).
 */
function withoutValues(err: unknown, submission: DeliveredSubmission): Error {
  if (!(err instanceof Error)) return new Error(redactValues(String(err), submission));
  const code = (err as { code?: unknown }).code;
  const message = redactValues(err.message, submission);
  const clean = err instanceof PermanentCrmError ? new PermanentCrmError(message) : new Error(message);
  if (typeof code === 'string') Object.assign(clean, { code });
  // The stack's first line repeats the message: keep the frames, with the redacted message.
  clean.stack = `${clean.name}: ${clean.message}\n${(err.stack ?? '').split('\n').slice(1).join('\n')}`;
  return clean;
}

/** The CV columns of a submissions row: the stored object's key and description, or NULLs. */
function cvColumns(submission: DeliveredSubmission): unknown[] {
  const { cv } = submission;
  const failed = submission.kind === 'careers-apply' && submission.data.cvUploadFailed === true;
  return cv ? [cv.key, cv.filename, cv.contentType, cv.size, cv.sha256, false] : [null, null, null, null, null, failed];
}
