import type { Database } from '../db/database.ts';
import { isContactKind, submissionEmail, type Crm, type DeliveredSubmission } from './crm.ts';

/**
 * The Postgres CRM: `submissions` gets one row per submission (keyed by its id, so a second delivery is a
 * no-op), and contact kinds also merge into `contacts` (keyed by email). When a replay brings an older
 * submission after a newer one, the newer values win field by field and the older only fill gaps.
 */
export function createPostgresCrm(db: Database): Crm {
  return {
    name: db.kind,
    async deliver(submission: DeliveredSubmission) {
      const email = submissionEmail(submission);
      return db.transaction(async (tx) => {
        let crmRecordId = submission.recordId;
        if (isContactKind(submission.kind)) {
          const { rows } = await tx.query<{ id: string }>(
            `INSERT INTO contacts (id, email, fields, first_accepted_at, last_accepted_at)
             VALUES ($1, $2, $3::jsonb, $4, $4)
             ON CONFLICT (email) DO UPDATE SET
               fields = CASE WHEN excluded.last_accepted_at >= contacts.last_accepted_at
                             THEN contacts.fields || excluded.fields
                             ELSE excluded.fields || contacts.fields END,
               first_accepted_at = LEAST(contacts.first_accepted_at, excluded.first_accepted_at),
               last_accepted_at = GREATEST(contacts.last_accepted_at, excluded.last_accepted_at),
               updated_at = now()
             RETURNING id`,
            [submission.recordId, email, JSON.stringify(submission.data), submission.acceptedAt],
          );
          crmRecordId = rows[0]!.id;
        }
        await tx.query(
          `INSERT INTO submissions (id, record_id, kind, email, payload, accepted_at,
                                    cv_key, cv_filename, cv_content_type, cv_size, cv_sha256, cv_upload_failed)
           VALUES ($1, $2, $3, $4, $5::jsonb, $6, $7, $8, $9, $10, $11, $12)
           ON CONFLICT (id) DO NOTHING`,
          [
            submission.submissionId, submission.recordId, submission.kind, email, JSON.stringify(submission.data), submission.acceptedAt,
            ...cvColumns(submission),
          ],
        );
        return { crmRecordId };
      });
    },
    close: () => db.close(),
  };
}

/** The CV columns of a submissions row: the stored object's key and description, or NULLs. */
function cvColumns(submission: DeliveredSubmission): unknown[] {
  const { cv } = submission;
  const failed = submission.kind === 'careers-apply' && submission.data.cvUploadFailed === true;
  return cv ? [cv.key, cv.filename, cv.contentType, cv.size, cv.sha256, false] : [null, null, null, null, null, failed];
}
