import { randomBytes } from 'node:crypto';
import { toJobPayload } from '@forms/schemas';
import { createPostgresCrm, migrate, openPostgres } from '@forms/worker';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { adminQuery, databaseUrl, sharedPostgresUrl } from '../support/crm-database.ts';

// Seen in CI: `ops-postgres-replay` (a store that refuses every new row) stalled with 100 jobs active, the
// server making ~36 new connections a second. Every statement the server refused (a constraint, a
// unique-key race, a bad value) cost a new connection: pg's `pool.query` drops the connection of any query
// that fails, and the Postgres store isolates a refused batch in one statement per row, each a refusal. A
// refused statement leaves its connection as good as it found it (it runs alone, outside any transaction),
// so it goes back to the pool; only a connection that failed on the client's side (timed out, dropped) is
// closed. Needs a PostgreSQL server (DATABASE_URL, or the usual local one): PGlite has no connections.
const adminUrl = await sharedPostgresUrl();
const name = `forms_refused_${randomBytes(5).toString('hex')}`;

describe('a statement the server refuses', () => {
  beforeAll(async () => {
    if (adminUrl) await adminQuery(adminUrl, `CREATE DATABASE ${name}`);
  });
  afterAll(async () => {
    if (adminUrl) await adminQuery(adminUrl, `DROP DATABASE IF EXISTS ${name} WITH (FORCE)`);
  });

  it.skipIf(!adminUrl && !process.env.CI)(
    'keeps its connection: 100 refusals, one query and one transaction at a time, on the one server process',
    async () => {
      expect(adminUrl, 'no PostgreSQL answered (DATABASE_URL or 127.0.0.1:5432)').toBeDefined();
      const db = openPostgres(databaseUrl(adminUrl!, name), { max: 1 });
      try {
        await migrate(db);
        const pid = async () => (await db.query<{ pid: number }>('SELECT pg_backend_pid() AS pid')).rows[0]!.pid;
        const first = await pid();
        for (let i = 0; i < 50; i++) {
          await expect(db.query('SELECT 1 / $1::int', [0])).rejects.toMatchObject({ code: '22012' });
          await expect(db.transaction((tx) => tx.query('SELECT 1 / $1::int', [0]))).rejects.toMatchObject({
            code: '22012',
          });
        }
        expect(await pid()).toBe(first);

        // Through the store, as the replay test stalled: every row refused, each isolated alone.
        await db.exec('ALTER TABLE submissions ADD CONSTRAINT refuse_all CHECK (false) NOT VALID');
        const crm = createPostgresCrm(db);
        const outcomes = await Promise.allSettled(
          Array.from({ length: 20 }, (_, i) =>
            crm.deliver(
              toJobPayload(
                'caf-signup',
                { email: `refused${i}@acme.io` },
                { submissionId: `sub_refused${i}`, recordId: `sub_refused${i}`, acceptedAt: new Date().toISOString() },
              ),
            ),
          ),
        );
        expect(outcomes.map((o) => o.status)).toEqual(Array(20).fill('rejected'));
        expect(await pid()).toBe(first);
      } finally {
        await db.close();
      }
    },
  );
});
