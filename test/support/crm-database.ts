import { randomBytes } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { type Database, migrate, openPglite, openPostgres } from '@forms/worker';
import pg from 'pg';
import { inject } from 'vitest';

export type TestDatabase = {
  /** The store to read. For a shareable PGlite, call it only once every worker process using it has exited. */
  read: () => Promise<Database>;
  /** Env for a worker process that must write to this same store. */
  workerEnv: Record<string, string>;
  close: () => Promise<void>;
};

/**
 * The CRM store for a test: a fresh database on the PostgreSQL at DATABASE_URL when set (dropped after),
 * else an embedded PGlite: in memory, or with `shareable` in a temporary folder that a worker process can
 * open (PGlite is single-process, so the test reads it after that process has stopped).
 */
export async function openTestDatabase({
  shareable = false,
  adminUrl = process.env.DATABASE_URL,
}: {
  shareable?: boolean;
  /** The server to create the database on; defaults to DATABASE_URL (PGlite when neither is set). */
  adminUrl?: string | undefined;
} = {}): Promise<TestDatabase> {
  if (adminUrl) {
    const name = `forms_test_${randomBytes(6).toString('hex')}`;
    const template = migratedTemplate();
    await adminQuery(adminUrl, `CREATE DATABASE ${name}${template ? ` TEMPLATE ${template}` : ''}`);
    const url = databaseUrl(adminUrl, name);
    const db = openPostgres(url);
    if (!template) await migrate(db);
    return {
      read: async () => db,
      workerEnv: { DATABASE_URL: url },
      async close() {
        await db.close().catch(() => {});
        await adminQuery(adminUrl, `DROP DATABASE IF EXISTS ${name} WITH (FORCE)`);
      },
    };
  }
  if (!shareable) {
    const db = await openPglite();
    await migrate(db);
    return { read: async () => db, workerEnv: {}, close: () => db.close() };
  }
  const dataDir = mkdtempSync(join(tmpdir(), 'forms-pglite-'));
  let db: Database | undefined;
  return {
    read: async () => (db ??= await openPglite(join(dataDir, 'pglite'))),
    workerEnv: { DATA_DIR: dataDir },
    async close() {
      await db?.close();
      rmSync(dataDir, { recursive: true, force: true });
    },
  };
}

/** The database `name` on the server of `adminUrl`. */
export function databaseUrl(adminUrl: string, name: string): string {
  const url = new URL(adminUrl);
  url.pathname = `/${name}`;
  return url.toString();
}

/** The postgres tier's migrated template (postgres-template-setup.ts), when this runs under it. */
function migratedTemplate(): string | undefined {
  try {
    return inject('postgresTemplate');
  } catch {
    return undefined; // outside vitest (a benchmark), or a tier without the template
  }
}

export async function adminQuery(url: string, sql: string) {
  const client = new pg.Client({ connectionString: url });
  await client.connect();
  try {
    await client.query(sql);
  } finally {
    await client.end();
  }
}

/** The PostgreSQL to use when several worker processes must share one store: DATABASE_URL, else the usual local one if it answers. */
export async function sharedPostgresUrl(): Promise<string | undefined> {
  const url = process.env.DATABASE_URL ?? 'postgres://postgres@127.0.0.1:5432/postgres';
  const client = new pg.Client({ connectionString: url, connectionTimeoutMillis: 2_000 });
  try {
    await client.connect();
    return url;
  } catch {
    return undefined;
  } finally {
    await client.end().catch(() => {});
  }
}
