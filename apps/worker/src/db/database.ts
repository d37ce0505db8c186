import { mkdirSync } from 'node:fs';
import { PGlite } from '@electric-sql/pglite';
import pg from 'pg';

export type Row = Record<string, unknown>;
export type Queryable = {
  query<T extends Row = Row>(sql: string, params?: unknown[]): Promise<{ rows: T[] }>;
  /** Runs a script of several statements (no parameters). */
  exec(sql: string): Promise<void>;
};
export type Database = Queryable & {
  kind: 'postgres' | 'pglite';
  transaction<T>(work: (tx: Queryable) => Promise<T>): Promise<T>;
  close(): Promise<void>;
};

/** A real PostgreSQL at `url`, through a small pool. */
export function openPostgres(url: string, { max = 5 } = {}): Database {
  const pool = new pg.Pool({ connectionString: url, max });
  const wrap = (client: pg.Pool | pg.PoolClient): Queryable => ({
    query: async (sql, params) => ({ rows: (await client.query(sql, params as unknown[])).rows }),
    exec: async (sql) => {
      await client.query(sql);
    },
  });
  return {
    kind: 'postgres',
    ...wrap(pool),
    async transaction(work) {
      const client = await pool.connect();
      try {
        await client.query('BEGIN');
        const result = await work(wrap(client));
        await client.query('COMMIT');
        return result;
      } catch (err) {
        await client.query('ROLLBACK').catch(() => {});
        throw err;
      } finally {
        client.release();
      }
    },
    close: () => pool.end(),
  };
}

/** Embedded Postgres (PGlite): in memory when `dataDir` is undefined, else persisted in that folder. */
export async function openPglite(dataDir?: string): Promise<Database> {
  if (dataDir) mkdirSync(dataDir, { recursive: true });
  const db = await PGlite.create(dataDir);
  const wrap = (q: Pick<PGlite, 'query' | 'exec'>): Queryable => ({
    query: async <T extends Row>(sql: string, params?: unknown[]) => ({ rows: (await q.query<T>(sql, params)).rows }),
    exec: async (sql) => {
      await q.exec(sql);
    },
  });
  return {
    kind: 'pglite',
    ...wrap(db),
    transaction: (work) => db.transaction((tx) => work(wrap(tx))),
    close: () => db.close(),
  };
}

export async function openDatabase({ databaseUrl, dataDir }: { databaseUrl?: string; dataDir?: string }): Promise<Database> {
  return databaseUrl ? openPostgres(databaseUrl) : openPglite(dataDir);
}
