import type { JobPayload } from '@forms/schemas';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { type Database, openPglite } from '../db/database.ts';
import { migrate } from '../db/migrate.ts';
import { createPostgresCrm } from './postgres-crm.ts';

// Postgres errors carry the refused input in `detail` and `where` (for a bad JSON value, the start of the
// document: the email first). Whoever logs the error object, or stores its message, would keep them.
let db: Database;
beforeAll(async () => {
  db = await openPglite();
  await migrate(db);
});
afterAll(() => db.close());

it('a refused write fails with an error that names no value of the submission', async () => {
  const crm = createPostgresCrm(db);
  const submission = {
    v: 1,
    submissionId: 'sub_leak',
    recordId: 'con_leak',
    kind: 'contact',
    acceptedAt: '2026-01-01T00:00:00.000Z',
    // A lone surrogate: JSON.stringify escapes it, and Postgres refuses the escape in jsonb.
    data: { email: 'leaky.person@acme.io', name: 'Lone\ud800Surrogate', phoneNumber: '+44 20 7946 0958' },
  } as JobPayload;
  const err = await crm.deliver(submission).then(
    () => undefined,
    (e: unknown) => e as Error,
  );
  expect(err).toBeInstanceOf(Error);
  const everything = JSON.stringify({ ...err, message: err!.message, stack: err!.stack });
  expect(everything).toMatch(/json/i); // still says what went wrong
  for (const value of ['leaky.person@acme.io', 'Lone', '+44 20 7946 0958']) expect(everything).not.toContain(value);
});
