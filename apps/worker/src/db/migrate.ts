import { existsSync } from 'node:fs';
import { readdir, readFile } from 'node:fs/promises';
import { fileURLToPath } from 'node:url';
import type { Database } from './database.ts';

// apps/worker/migrations, seen from src/db/ (run from source) or from dist/ (the production bundle).
const MIGRATIONS_DIR = ['../../migrations/', '../migrations/']
  .map((relative) => fileURLToPath(new URL(relative, import.meta.url)))
  .find((dir) => existsSync(dir))!;
// Any constant works; it keeps workers starting together from creating the table or applying a file twice.
const MIGRATION_LOCK = 727_274_001;

/** Applies every `migrations/*.sql` not yet recorded, in name order, each in its own transaction. */
export async function migrate(db: Database, dir = MIGRATIONS_DIR): Promise<string[]> {
  const files = (await readdir(dir)).filter((f) => f.endsWith('.sql')).sort();
  const applied: string[] = [];
  // Under the lock too: `CREATE TABLE IF NOT EXISTS` is not safe against itself. Two workers starting together
  // on a fresh database both passed the check, and one failed with `duplicate key value violates unique
  // constraint "pg_type_typname_nsp_index"` (test/integration/simultaneous-worker-starts-race-the-migrations-table).
  await db.transaction(async (tx) => {
    await tx.query('SELECT pg_advisory_xact_lock($1)', [MIGRATION_LOCK]);
    await tx.exec(
      'CREATE TABLE IF NOT EXISTS schema_migrations (name text PRIMARY KEY, applied_at timestamptz NOT NULL DEFAULT now())',
    );
  });
  for (const name of files) {
    const sql = await readFile(`${dir}/${name}`, 'utf8');
    await db.transaction(async (tx) => {
      await tx.query('SELECT pg_advisory_xact_lock($1)', [MIGRATION_LOCK]);
      const done = await tx.query('SELECT 1 FROM schema_migrations WHERE name = $1', [name]);
      if (done.rows.length > 0) return;
      await tx.exec(sql);
      await tx.query('INSERT INTO schema_migrations (name) VALUES ($1)', [name]);
      applied.push(name);
    });
  }
  return applied;
}
