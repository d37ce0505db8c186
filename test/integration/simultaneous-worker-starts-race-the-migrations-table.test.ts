import { randomBytes } from 'node:crypto';
import { migrate, openPostgres } from '@forms/worker';
import { describe, expect, it } from 'vitest';
import { adminQuery, databaseUrl, sharedPostgresUrl } from '../support/crm-database.ts';

// Two workers starting together on a fresh database: one exited 1 with `duplicate key value violates unique
// constraint "pg_type_typname_nsp_index"` (1 start in 8), because `CREATE TABLE IF NOT EXISTS
// schema_migrations` ran before the advisory lock and two concurrent creates race inside Postgres. Here
// STARTERS workers' migrations (each its own pool, as each worker has) begin at once on a fresh database,
// ROUNDS times; every one must finish, and the files are applied once.
// The race lives in a real PostgreSQL (PGlite takes one connection), so this needs one: DATABASE_URL, or
// the usual local one. CI always has one; elsewhere, without one, the test is skipped and says so.
const adminUrl = await sharedPostgresUrl();
const STARTERS = 6;
const ROUNDS = 12;

describe('simultaneous worker starts on a fresh database', () => {
  it.skipIf(!adminUrl && !process.env.CI)(
    `${STARTERS} starters x ${ROUNDS} fresh databases: every one migrates, each file applied once`,
    async () => {
      expect(adminUrl, 'no PostgreSQL answered (DATABASE_URL or 127.0.0.1:5432)').toBeDefined();
      const failures: string[] = [];
      for (let round = 0; round < ROUNDS; round++) {
        const name = `forms_migrate_race_${randomBytes(5).toString('hex')}`;
        await adminQuery(adminUrl!, `CREATE DATABASE ${name}`);
        const pools = Array.from({ length: STARTERS }, () => openPostgres(databaseUrl(adminUrl!, name), { max: 1 }));
        try {
          // Each pool opens its connection first, so the migrations, not the connects, start together.
          await Promise.all(pools.map((db) => db.query('SELECT 1')));
          const results = await Promise.allSettled(pools.map((db) => migrate(db)));
          for (const r of results) if (r.status === 'rejected') failures.push(`round ${round}: ${r.reason}`);
          const applied = results.flatMap((r) => (r.status === 'fulfilled' ? r.value : []));
          const recorded = await pools[0]!.query<{ name: string }>('SELECT name FROM schema_migrations');
          // Each file applied by exactly one starter, and recorded once.
          expect([...applied].sort()).toEqual(recorded.rows.map((r) => r.name).sort());
        } finally {
          await Promise.all(pools.map((db) => db.close()));
          await adminQuery(adminUrl!, `DROP DATABASE IF EXISTS ${name} WITH (FORCE)`);
        }
      }
      expect(failures).toEqual([]);
    },
    60_000,
  );
});
