import type { JobPayload } from '@forms/schemas';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { type Database, openPglite } from '../db/database.ts';
import { migrate } from '../db/migrate.ts';
import { createPostgresCrm } from './postgres-crm.ts';

// The contacts merge compared the whole record's newest acceptance time, not each field's: after a newer
// write of another field had landed, an older write filled a "gap" with its old name, and a write newer
// than that old name, arriving last, could no longer replace it. Newer wins per field, in any order.
let db: Database;
beforeAll(async () => {
  db = await openPglite();
  await migrate(db);
});
afterAll(() => db.close());

const write = (n: number, data: Record<string, unknown>) =>
  ({
    v: 1,
    submissionId: `sub_${n}`,
    recordId: 'con_f',
    kind: 'contact-update',
    acceptedAt: `2026-01-0${n}T00:00:00.000Z`,
    data: { email: 'field@acme.io', ...data },
  }) as JobPayload;

it('each field ends with its newest value, whatever order the writes arrive in', async () => {
  const crm = createPostgresCrm(db);
  await crm.deliver(write(3, { message: 'newest message' }));
  await crm.deliver(write(1, { name: 'Oldest Name', message: 'oldest message', monthlyBudget: '1k' }));
  await crm.deliver(write(2, { name: 'Newer Name' }));
  await crm.deliver(write(1, { name: 'Oldest Name', message: 'oldest message', monthlyBudget: '1k' })); // replay
  const { rows } = await db.query('SELECT fields FROM contacts WHERE email = $1', ['field@acme.io']);
  expect(rows).toEqual([
    { fields: { email: 'field@acme.io', name: 'Newer Name', message: 'newest message', monthlyBudget: '1k' } },
  ]);
});
