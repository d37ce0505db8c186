import { toJobPayload } from '@forms/schemas';
import { createPostgresCrm } from '@forms/worker';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { openTestDatabase, type TestDatabase } from '../support/crm-database.ts';

// A contact and a contact-update for one new email, delivered at once (a site's form, then its "update your
// details" step): in two batches in flight, both statements insert the new contact. ON CONFLICT (email)
// sees the other's row only once it is committed, so the second insert met the contact id's own key and
// failed with 23505 (duplicate key "contacts_pkey"); the job failed its first attempt and was written 5 s
// later (seen as `attempts: 2` in admin-surface.test.ts, and 9 failed deliveries in 400 here). The race
// needs a PostgreSQL server (DATABASE_URL, as CI has): PGlite runs one statement at a time.
const EMAILS = 200;
let store: TestDatabase;
beforeAll(async () => {
  store = await openTestDatabase();
});
afterAll(() => store?.close());

const nextTurn = () => new Promise((resolve) => setImmediate(resolve));

it(`${EMAILS} new contacts, each with its update in flight at the same time: every delivery succeeds and merges`, async () => {
  const db = await store.read();
  const crm = createPostgresCrm(db);
  const failed: string[] = [];
  for (let i = 0; i < EMAILS; i++) {
    const email = `race${i}@acme.io`;
    const ids = { recordId: `con_race${i}`, acceptedAt: new Date().toISOString() };
    const contact = toJobPayload(
      'contact',
      { email, name: 'Ada', message: 'Hello' },
      {
        ...ids,
        submissionId: `sub_race${i}_contact`,
      },
    );
    const delivering = crm.deliver(contact);
    await nextTurn(); // the update in a batch of its own, while the contact's is in flight
    const update = toJobPayload(
      'contact-update',
      { email, name: 'Ada Lovelace' },
      {
        ...ids,
        acceptedAt: new Date(Date.parse(ids.acceptedAt) + 1).toISOString(),
        submissionId: `sub_race${i}_update`,
      },
    );
    for (const outcome of await Promise.allSettled([delivering, crm.deliver(update)])) {
      if (outcome.status === 'rejected') failed.push(String((outcome.reason as Error).message));
    }
  }
  expect(failed).toEqual([]);
  const { rows } = await db.query<{ id: string; name: string }>(
    `SELECT id, fields->>'name' AS name FROM contacts WHERE email LIKE 'race%@acme.io'`,
  );
  expect(rows.length).toBe(EMAILS);
  expect(new Set(rows.map((r) => r.name))).toEqual(new Set(['Ada Lovelace'])); // the newer write won
  await crm.close();
});
