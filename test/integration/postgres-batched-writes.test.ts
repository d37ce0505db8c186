import { createPostgresCrm, type Database, type DeliveredSubmission } from '@forms/worker';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { openTestDatabase, type TestDatabase } from '../support/crm-database.ts';

// A launch's backlog drained at one transaction per submission (1,268/s into a real Postgres against 3,712
// acknowledgements/s). The driver writes the deliveries of concurrently running jobs together, many per
// statement, with the same rules per submission: its own outcome, newer wins per field, exactly once.
// On PGlite, or on the PostgreSQL at DATABASE_URL (a fresh database).
let store: TestDatabase;
let db: Database;
/** The store, for a driver whose `close` must leave it open (it is the test's). */
let shared: Database;
beforeAll(async () => {
  store = await openTestDatabase();
  db = await store.read();
  shared = { ...db, close: async () => {} };
});
afterAll(() => store?.close());

let seq = 0;
/** A contact-update for `email`, accepted on day `day` of January (the newer the later). */
function update(email: string, day: number, data: Record<string, unknown>): DeliveredSubmission {
  const id = `sub_${day}_${++seq}`;
  const acceptedAt = `2026-01-${String(day).padStart(2, '0')}T00:00:00.000Z`;
  return {
    v: 1,
    submissionId: id,
    recordId: `con_${email}`,
    kind: 'contact-update',
    acceptedAt,
    data: { email, ...data },
  } as DeliveredSubmission;
}
function signup(email: string, data: Record<string, unknown> = {}): DeliveredSubmission {
  const id = `sub_s${++seq}`;
  const acceptedAt = '2026-01-01T00:00:00.000Z';
  return {
    v: 1,
    submissionId: id,
    recordId: id,
    kind: 'caf-signup',
    acceptedAt,
    data: { email, ...data },
  } as DeliveredSubmission;
}

/** The database, counting the statements sent (a transaction's own statements included). */
function counting(inner: Database) {
  const counter = { statements: 0 };
  const count = <Q extends Pick<Database, 'query'>>(q: Q): Q => ({
    ...q,
    query: (sql: string, params?: unknown[]) => {
      counter.statements++;
      return q.query(sql, params);
    },
  });
  const counted: Database = {
    ...count(inner),
    transaction: (work) => inner.transaction((tx) => work(count(tx))),
    close: async () => {}, // the store is the test's
  };
  return { db: counted, counter };
}

const settle = (crm: ReturnType<typeof createPostgresCrm>, subs: DeliveredSubmission[]) =>
  Promise.allSettled(subs.map((s) => crm.deliver(s)));

async function storedIds(ids: string[]): Promise<string[]> {
  const { rows } = await db.query<{ id: string }>('SELECT id FROM submissions WHERE id = ANY($1) ORDER BY id', [ids]);
  return rows.map((r) => r.id);
}

describe('the Postgres driver writes concurrent deliveries together', () => {
  it('forty concurrent deliveries are written in at most two statements, not one transaction each', async () => {
    const { db: counted, counter } = counting(db);
    const crm = createPostgresCrm(counted);
    const subs = Array.from({ length: 40 }, (_, i) =>
      i % 2 ? signup(`many-${i}@acme.io`) : update(`many-${i}@acme.io`, 1, { name: `N${i}` }),
    );
    const outcomes = await settle(crm, subs);
    expect(outcomes.map((o) => o.status)).toEqual(subs.map(() => 'fulfilled'));
    expect(counter.statements).toBeLessThanOrEqual(2);
    expect(await storedIds(subs.map((s) => s.submissionId))).toEqual(subs.map((s) => s.submissionId).sort());
    await crm.close();
  });

  it('one refused row fails alone, with its own reason and none of its values; its neighbours are written', async () => {
    const crm = createPostgresCrm(shared);
    // A lone surrogate: JSON.stringify escapes it, and Postgres refuses the escape in jsonb.
    const bad = update('bad.row.person@acme.io', 2, { name: 'Lone\ud800Surrogate', phoneNumber: '+44 20 7946 0958' });
    const good = Array.from({ length: 9 }, (_, i) => update(`neighbour-${i}@acme.io`, 2, { name: `Neighbour ${i}` }));
    const subs = [...good.slice(0, 4), bad, ...good.slice(4)];
    const outcomes = await settle(crm, subs);
    expect(outcomes.map((o) => o.status)).toEqual(subs.map((s) => (s === bad ? 'rejected' : 'fulfilled')));
    const err = (outcomes[4] as PromiseRejectedResult).reason as Error;
    const everything = JSON.stringify({ ...err, message: err.message, stack: err.stack });
    expect(everything).toMatch(/json/i);
    for (const value of ['bad.row.person@acme.io', 'Lone', '+44 20 7946 0958']) expect(everything).not.toContain(value);
    expect(await storedIds(subs.map((s) => s.submissionId))).toEqual(good.map((s) => s.submissionId).sort());
    const { rows } = await db.query('SELECT count(*)::int AS n FROM contacts WHERE email = $1', [
      'bad.row.person@acme.io',
    ]);
    expect(rows).toEqual([{ n: 0 }]);
    await crm.close();
  });

  it('a refusal of every row fails each alone, in about one statement per row, not two', async () => {
    await db.exec('ALTER TABLE submissions ADD CONSTRAINT batch_test_refuse CHECK (false) NOT VALID');
    try {
      const { db: counted, counter } = counting(shared);
      const crm = createPostgresCrm(counted);
      const subs = Array.from({ length: 16 }, (_, i) => signup(`refused-${i}@acme.io`));
      const outcomes = await settle(crm, subs);
      for (const outcome of outcomes) {
        expect(outcome.status).toBe('rejected');
        expect(((outcome as PromiseRejectedResult).reason as Error).message).toMatch(/batch_test_refuse/);
      }
      expect(counter.statements).toBeLessThanOrEqual(subs.length + 3); // the batch, its two halves, each row
      await crm.close();
    } finally {
      await db.exec('ALTER TABLE submissions DROP CONSTRAINT batch_test_refuse');
    }
  });

  it('the same contact several times in one batch: per field the newest write wins, whatever the order', async () => {
    const crm = createPostgresCrm(shared);
    const email = 'twice@acme.io';
    const first = update(email, 3, { name: 'Day 3 Name', message: 'day 3 message' });
    const batch = [
      update(email, 5, { name: 'Day 5 Name' }),
      update(email, 2, { name: 'Day 2 Name', message: 'day 2 message', monthlyBudget: '1k' }),
      update(email, 4, { message: 'day 4 message' }),
    ];
    await crm.deliver(first);
    const outcomes = await settle(crm, batch);
    expect(outcomes).toEqual(batch.map(() => ({ status: 'fulfilled', value: { crmRecordId: `con_${email}` } })));
    // Later, alone: a write older than each field's value changes nothing; one between fills no gap either.
    await crm.deliver(update(email, 1, { name: 'Day 1 Name', message: 'day 1 message' }));
    await crm.deliver(batch[1]!); // a replay
    const { rows } = await db.query(
      'SELECT fields, first_accepted_at, last_accepted_at FROM contacts WHERE email = $1',
      [email],
    );
    expect(rows).toEqual([
      {
        fields: { email, name: 'Day 5 Name', message: 'day 4 message', monthlyBudget: '1k' },
        first_accepted_at: new Date('2026-01-01T00:00:00.000Z'),
        last_accepted_at: new Date('2026-01-05T00:00:00.000Z'),
      },
    ]);
    // A new contact written twice in its first batch keeps the first write's id.
    const fresh = [update('fresh@acme.io', 2, { name: 'B' }), update('fresh@acme.io', 1, { name: 'A' })];
    fresh[1]!.recordId = 'con_other';
    expect((await settle(crm, fresh)).map((o) => (o as PromiseFulfilledResult<unknown>).value)).toEqual([
      { crmRecordId: 'con_fresh@acme.io' },
      { crmRecordId: 'con_fresh@acme.io' },
    ]);
    const merged = await db.query('SELECT id, fields FROM contacts WHERE email = $1', ['fresh@acme.io']);
    expect(merged.rows).toEqual([{ id: 'con_fresh@acme.io', fields: { email: 'fresh@acme.io', name: 'B' } }]);
    await crm.close();
  });

  it('a submission the store already holds changes nothing, its contact merge included, alone or twice in a batch', async () => {
    const crm = createPostgresCrm(shared);
    const email = 'held@acme.io';
    const first = update(email, 2, { name: 'First' });
    await crm.deliver(first);
    // The same submission accepted anew (a client's retry after a failover): a later stamp, other values.
    const again = {
      ...first,
      acceptedAt: '2026-01-05T00:00:00.000Z',
      recordId: 'con_other',
      data: { email, name: 'Retry' },
    };
    expect(await crm.deliver(again as DeliveredSubmission)).toEqual({ crmRecordId: `con_${email}` });
    const twice = update(email, 3, { name: 'Once' });
    const twiceAgain = { ...twice, acceptedAt: '2026-01-06T00:00:00.000Z', data: { email, name: 'Twice' } };
    expect((await settle(crm, [twice, twiceAgain as DeliveredSubmission])).map((o) => o.status)).toEqual([
      'fulfilled',
      'fulfilled',
    ]);
    const { rows } = await db.query('SELECT fields, last_accepted_at FROM contacts WHERE email = $1', [email]);
    expect(rows).toEqual([{ fields: { email, name: 'Once' }, last_accepted_at: new Date('2026-01-03T00:00:00.000Z') }]);
    expect(await storedIds([first.submissionId, twice.submissionId])).toEqual(
      [first.submissionId, twice.submissionId].sort(),
    );
    await crm.close();
  });

  it('a batch whose commit was not heard is retried whole: every submission stays once, the contact unchanged', async () => {
    // The statement commits, then its answer is lost (a dropped connection): every job of the batch fails
    // and runs again.
    let lose = true;
    const lossy: Database = {
      ...shared,
      query: async <T extends Record<string, unknown>>(sql: string, params?: unknown[]) => {
        const result = await db.query<T>(sql, params);
        if (lose && sql.includes('INSERT INTO submissions')) {
          lose = false;
          throw new Error('Connection terminated unexpectedly');
        }
        return result;
      },
    };
    const crm = createPostgresCrm(lossy);
    const email = 'retried@acme.io';
    const subs = [
      update(email, 2, { name: 'Newer' }),
      update(email, 1, { name: 'Older', monthlyBudget: '5k' }),
      ...Array.from({ length: 6 }, (_, i) => signup(`retried-${i}@acme.io`)),
    ];
    const firstTry = await settle(crm, subs);
    expect(firstTry.map((o) => o.status)).toEqual(subs.map(() => 'rejected'));
    const retry = await settle(crm, subs);
    expect(retry.map((o) => o.status)).toEqual(subs.map(() => 'fulfilled'));
    const { rows } = await db.query<{ id: string; n: number }>(
      'SELECT id, count(*)::int AS n FROM submissions WHERE id = ANY($1) GROUP BY id',
      [subs.map((s) => s.submissionId)],
    );
    expect(rows.length).toBe(subs.length);
    expect(rows.every((r) => r.n === 1)).toBe(true);
    const contact = await db.query('SELECT fields FROM contacts WHERE email = $1', [email]);
    expect(contact.rows).toEqual([{ fields: { email, name: 'Newer', monthlyBudget: '5k' } }]);
    await crm.close();
  });
});
