import { mkdirSync } from 'node:fs';
import { PGlite } from '@electric-sql/pglite';
import pg from 'pg';
import { lockDataDir } from './lock-data-dir.ts';

type Row = Record<string, unknown>;
type Queryable = {
  query<T extends Row = Row>(sql: string, params?: unknown[]): Promise<{ rows: T[] }>;
  /** Runs a script of several statements (no parameters). */
  exec(sql: string): Promise<void>;
};
export type Database = Queryable & {
  kind: 'postgres' | 'pglite';
  transaction<T>(work: (tx: Queryable) => Promise<T>): Promise<T>;
  close(): Promise<void>;
};

type PostgresTimeouts = {
  /** Bound on opening a connection, and on waiting for a free one in the pool. */
  connectTimeoutMs?: number;
  /**
   * Bound on one statement: the server cancels it (`statement_timeout`), and the client gives up
   * (`query_timeout`) a little later, for a server that does not answer at all.
   */
  queryTimeoutMs?: number;
};

/**
 * A real PostgreSQL at `url`, through a small pool. Every call is bounded: a database that accepts
 * connections and never answers once kept jobs pending for good, and ten of them stopped a worker. A call
 * that runs out of time rejects with a plain error, which the worker retries on its schedule.
 */
export function openPostgres(
  url: string,
  { max = 5, connectTimeoutMs = 5_000, queryTimeoutMs = 10_000 }: { max?: number } & PostgresTimeouts = {},
): Database {
  const pool = new pg.Pool({
    connectionString: url,
    max,
    connectionTimeoutMillis: connectTimeoutMs,
    statement_timeout: queryTimeoutMs,
    // The client-side bound, for a server that went silent: later than the server's own, whose error is clearer.
    query_timeout: queryTimeoutMs + 1_000,
    // A transaction whose worker died or hung must not hold its row locks for ever.
    idle_in_transaction_session_timeout: queryTimeoutMs,
    idleTimeoutMillis: 30_000,
    // Finds a peer that vanished without closing (a failed-over host) instead of waiting on it.
    keepAlive: true,
  });
  // An idle client's connection dropping is reported here; without a listener it would crash the process.
  pool.on('error', () => {});
  const wrap = (client: pg.PoolClient): Queryable => ({
    query: async (sql, params) => ({ rows: (await client.query(sql, params as unknown[])).rows }),
    exec: async (sql) => {
      await client.query(sql);
    },
  });
  /**
   * `work` on a connection of the pool, given back afterwards. A refusal by the server (an error with a
   * SQLSTATE code: a constraint, a bad value, a lost race) leaves a working connection, which goes back to
   * the pool (with `onServerError` run on it first). Anything else (a client-side timeout, a dropped socket)
   * leaves one that may never answer, and it is closed. Not pg's `pool.query`: it closes the connection of
   * every failed query, and the store isolates a refused batch in one statement per row, so a store that
   * refused rows opened a connection per row (about 36 statements a second here, jobs stalled for minutes).
   */
  async function withClient<T>(
    work: (client: pg.PoolClient) => Promise<T>,
    onServerError?: (client: pg.PoolClient) => Promise<unknown>,
  ): Promise<T> {
    const client = await pool.connect();
    // Set when the connection can no longer be trusted (a timed-out query may still be running on it).
    let broken: Error | undefined;
    try {
      return await work(client);
    } catch (err) {
      if (!isServerError(err)) broken = err as Error;
      else if (onServerError)
        await onServerError(client).catch((cleanupErr: Error) => {
          broken = cleanupErr;
        });
      throw err;
    } finally {
      client.release(broken);
    }
  }
  return {
    kind: 'postgres',
    query: (sql, params) => withClient((client) => wrap(client).query(sql, params)),
    exec: (sql) => withClient((client) => wrap(client).exec(sql)),
    // A server's error leaves a transaction to roll back; a ROLLBACK on a connection that may never answer
    // would wait out a second timeout, so that one is closed instead, which ends the transaction.
    transaction: (work) =>
      withClient(
        async (client) => {
          await client.query('BEGIN');
          const result = await work(wrap(client));
          await client.query('COMMIT');
          return result;
        },
        (client) => client.query('ROLLBACK'),
      ),
    close: () => pool.end(),
  };
}

/** An error Postgres itself answered with: it carries a five-character SQLSTATE code. */
function isServerError(err: unknown): boolean {
  const code = (err as { code?: unknown } | undefined)?.code;
  return typeof code === 'string' && /^[0-9A-Z]{5}$/.test(code);
}

/**
 * Embedded Postgres (PGlite): in memory when `dataDir` is undefined, else persisted in that folder, which
 * this process then holds until `close` (a second opener is refused at once: `lockDataDir`).
 */
export async function openPglite(dataDir?: string): Promise<Database> {
  let release = () => {};
  if (dataDir) {
    mkdirSync(dataDir, { recursive: true });
    release = lockDataDir(dataDir);
  }
  const db = await PGlite.create(dataDir).catch((err: Error) => {
    release();
    throw err;
  });
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
    async close() {
      await db.close();
      release();
    },
  };
}

/**
 * Postgres at `databaseUrl`, else the embedded PGlite. PGlite takes no timeouts: it runs in this process
 * with one connection, so no network can go silent and no other session can hold a lock it waits on (it
 * also ignores `statement_timeout`: checked, `pg_sleep(1)` under a 200 ms limit ran its full second).
 */
export async function openDatabase({
  databaseUrl,
  dataDir,
  timeouts = {},
}: {
  databaseUrl?: string | undefined;
  dataDir?: string;
  timeouts?: PostgresTimeouts;
}): Promise<Database> {
  return databaseUrl ? openPostgres(databaseUrl, timeouts) : openPglite(dataDir);
}
