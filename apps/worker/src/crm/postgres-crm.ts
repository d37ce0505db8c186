import { createWriteBatcher } from '@forms/runtime';
import { SUBMISSION_KINDS } from '@forms/schemas';
import type { Database } from '../db/database.ts';
import { type Crm, type DeliveredSubmission, type DeliveryResult, isContactKind, PermanentCrmError } from './crm.ts';
import { redactValues } from './redact-values.ts';
import { upsertSubmissions } from './upsert-submissions.ts';

/**
 * The Postgres CRM: `submissions` gets one row per submission (keyed by its id, so a second delivery is a
 * no-op, the contact's merge included), and contact kinds also merge into `contacts` (keyed by email). When a replay brings an older
 * submission after a newer one, the newer values win field by field and the older only fill gaps
 * (`upsertSubmissions` holds those rules). The `deliver` calls of concurrently running jobs are written
 * together, many per statement (`createWriteBatcher`); a batch that fails because of one of its rows is
 * split until that row fails alone, so its neighbours are written and its error is its own.
 */
export function createPostgresCrm(
  db: Database,
  { maxBatch, maxInFlight }: { maxBatch?: number; maxInFlight?: number } = {},
): Crm {
  const batcher = createWriteBatcher<DeliveredSubmission, DeliveryResult>({
    write: (submissions) => writeBatch(db, submissions),
    maxBatch,
    maxInFlight,
  });
  return {
    name: db.kind,
    deliver: (submission) => batcher.add(submission),
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
    async markSpam(targets) {
      if (targets.length === 0) return [];
      // One statement: the submissions' rows, and the contacts of the contact kinds among them.
      const { rows } = await db.query<{ id: string }>(
        `WITH marked AS (
           UPDATE submissions SET marked_spam = true WHERE id = ANY($1::text[]) RETURNING id, email, kind
         ),
         contact AS (
           UPDATE contacts SET marked_spam = true, updated_at = now()
           WHERE email IN (SELECT email FROM marked WHERE kind = ANY($2::text[])) AND NOT marked_spam
         )
         SELECT id FROM marked`,
        [targets.map((t) => t.submissionId), CONTACT_KINDS],
      );
      return rows.map((r) => r.id);
    },
    async close() {
      await batcher.close();
      await db.close();
    },
  };
}

const CONTACT_KINDS = SUBMISSION_KINDS.filter(isContactKind);

type Outcome = PromiseSettledResult<DeliveryResult>;
type Attempt = { outcomes: Outcome[] } | { error: unknown };

/**
 * Writes the batch in one statement; each submission's outcome in order. A failure the rows may have
 * caused (the server refused the statement: bad input, a constraint, a deadlock) is narrowed down to the
 * rows that fail alone, each with its own error (`isolate`). A failure of the database itself
 * (unreachable, timed out, shutting down) is every row's, and all are retried later.
 */
async function writeBatch(db: Database, submissions: readonly DeliveredSubmission[]): Promise<Outcome[]> {
  const first = await attempt(db, submissions);
  if ('outcomes' in first) return first.outcomes;
  if (submissions.length > 1 && causedByRows(first.error)) return isolate(db, submissions);
  return failAll(first.error, submissions);
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
 * For a batch refused because of some row: writes each half; while only one half is refused, the bad row
 * is in it, and it is halved again (one bad row among n costs about 2·log2(n) statements). When both
 * halves are refused, the refusal is widespread (a constraint every row breaks, a missing grant), and each
 * row of both is written alone (n statements, not the 2n of halving down to every row). Halves, and rows
 * alone, are written side by side through the pool.
 */
async function isolate(db: Database, submissions: readonly DeliveredSubmission[]): Promise<Outcome[]> {
  const middle = Math.ceil(submissions.length / 2);
  const halves = [submissions.slice(0, middle), submissions.slice(middle)];
  // At once, as the jobs would have without batching: the pool runs them side by side.
  const tries = await Promise.all(halves.map((half) => attempt(db, half)));
  const refused = (t: Attempt) => 'error' in t && causedByRows(t.error);
  if (tries.every(refused)) return (await Promise.all(submissions.map((s) => writeBatch(db, [s])))).flat();
  const outcomes = await Promise.all(
    tries.map((t, i) => {
      const half = halves[i]!;
      if ('outcomes' in t) return t.outcomes;
      if (half.length > 1 && refused(t)) return isolate(db, half);
      return failAll(t.error, half);
    }),
  );
  return outcomes.flat();
}

/**
 * One statement for `submissions`, written again (at most twice more) when it lost a race with another
 * statement rather than failed for its rows: the statement is its own transaction, so a refused one wrote
 * nothing. The race: two statements insert the same new contact at once (a contact and a contact-update for
 * one email, in two batches in flight); ON CONFLICT (email) sees the other's row only once it is committed,
 * and before that the contact id's own key refuses the second insert (23505). Written again, the statement
 * finds the committed row and merges into it. Deadlocks (40P01) and serialization failures (40001) are the
 * same kind. A row that is really refused is refused again, and goes on to `isolate`.
 */
async function attempt(db: Database, submissions: readonly DeliveredSubmission[]): Promise<Attempt> {
  for (let tries = 1; ; tries++) {
    try {
      const ids = await upsertSubmissions(db, submissions);
      return { outcomes: ids.map((crmRecordId) => ({ status: 'fulfilled', value: { crmRecordId } })) };
    } catch (error) {
      if (tries < 3 && lostARace(error)) continue;
      return { error };
    }
  }
}

/** A unique violation, deadlock or serialization failure: what a concurrent statement causes. */
function lostARace(err: unknown): boolean {
  const code = (err as { code?: unknown } | undefined)?.code;
  return code === '23505' || code === '40P01' || code === '40001';
}

/** Alone, the error is the row's own; shared, it names none of the batch's values either. */
function failAll(error: unknown, submissions: readonly DeliveredSubmission[]): Outcome[] {
  const reason = withoutValues(error, submissions.length === 1 ? submissions[0] : submissions);
  return submissions.map(() => ({ status: 'rejected', reason }));
}

/**
 * An error Postgres answered for the statement (it carries a SQLSTATE and a severity), other than those
 * about the server rather than the data: connection (08), resources (53), operator intervention such as a
 * statement timeout or a shutdown (57), system errors (58).
 */
function causedByRows(err: unknown): boolean {
  const { code, severity } = (err ?? {}) as { code?: unknown; severity?: unknown };
  if (typeof code !== 'string' || !/^[0-9A-Z]{5}$/.test(code) || typeof severity !== 'string') return false;
  return !['08', '53', '57', '58'].includes(code.slice(0, 2));
}

/**
 * The error as the worker may log and keep it: the message with the values of the submission(s) redacted, and
 * the SQLSTATE `code`, but none of Postgres' `detail`, `where` or `internalQuery`, which quote the input
 * (a refused JSON document's `where` starts with the email).
 */
function withoutValues(err: unknown, values: unknown): Error {
  if (!(err instanceof Error)) return new Error(redactValues(String(err), values));
  const code = (err as { code?: unknown }).code;
  const message = redactValues(err.message, values);
  const clean = err instanceof PermanentCrmError ? new PermanentCrmError(message) : new Error(message);
  if (typeof code === 'string') Object.assign(clean, { code });
  // The stack's first line repeats the message: keep the frames, with the redacted message.
  clean.stack = `${clean.name}: ${clean.message}\n${(err.stack ?? '').split('\n').slice(1).join('\n')}`;
  return clean;
}
