import type { AddressInfo } from 'node:net';
import { createServer, type Server, type Socket } from 'node:net';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { PermanentCrmError } from '../crm/crm.ts';
import { createPostgresCrm } from '../crm/postgres-crm.ts';
import { openPostgres } from './database.ts';

// Seen: a database that accepts the TCP connection and never answers kept jobs pending for good (still
// pending after 8 s), and ten such jobs stopped a worker. Every call must end within its deadline, as a
// retryable failure.
const sockets = new Set<Socket>();
let silent: Server;
let port: number;
beforeAll(async () => {
  silent = createServer((socket) => {
    sockets.add(socket);
    socket.on('error', () => {});
    socket.on('close', () => sockets.delete(socket));
    socket.resume(); // reads everything, answers nothing
  });
  await new Promise<void>((resolve) => silent.listen(0, '127.0.0.1', resolve));
  port = (silent.address() as AddressInfo).port;
});
afterAll(async () => {
  for (const s of sockets) s.destroy();
  await new Promise((resolve) => silent.close(resolve));
});

const submission = {
  v: 1,
  submissionId: 'sub_hang',
  recordId: 'sub_hang',
  kind: 'caf-signup',
  acceptedAt: '2026-01-01T00:00:00.000Z',
  data: { email: 'hang@acme.io' },
} as const;

/** Settles with the outcome of `work`, or with 'still pending' after `ms`. */
async function within<T>(ms: number, work: Promise<T>): Promise<PromiseSettledResult<T> | 'still pending'> {
  let timer: NodeJS.Timeout | undefined;
  const late = new Promise<'still pending'>((resolve) => {
    timer = setTimeout(() => resolve('still pending'), ms);
  });
  try {
    return await Promise.race([Promise.allSettled([work]).then(([r]) => r!), late]);
  } finally {
    clearTimeout(timer);
  }
}

it('a database that accepts and never answers fails each write within its deadline, as a retryable error', async () => {
  const db = openPostgres(`postgres://u@127.0.0.1:${port}/none`, { connectTimeoutMs: 300, queryTimeoutMs: 500 });
  const crm = createPostgresCrm(db);
  try {
    const started = Date.now();
    // More writes than the pool has connections: the ones queued for a connection are bounded too.
    const outcomes = await Promise.all(Array.from({ length: 8 }, () => within(3_000, crm.deliver(submission))));
    for (const outcome of outcomes) {
      expect(outcome).not.toBe('still pending');
      expect((outcome as PromiseSettledResult<unknown>).status).toBe('rejected');
      expect((outcome as PromiseRejectedResult).reason).not.toBeInstanceOf(PermanentCrmError);
    }
    expect(Date.now() - started).toBeLessThan(3_000);
  } finally {
    await within(2_000, crm.close());
  }
});

it('a database that stops answering after connecting fails the write within its deadline', async () => {
  // A real Postgres behind a proxy we can freeze: the pool connects for real, then the server goes silent.
  const target = process.env.DATABASE_URL ? new URL(process.env.DATABASE_URL) : undefined;
  if (!target && !(await postgresAnswers())) return; // no local PostgreSQL: the never-answering case above stands
  const upstream = { host: target?.hostname ?? '127.0.0.1', port: Number(target?.port || 5432) };
  let frozen = false;
  const { createConnection } = await import('node:net');
  const proxy = createServer((client) => {
    const server = createConnection(upstream);
    client.on('error', () => {});
    server.on('error', () => {});
    client.on('data', (d) => frozen || server.write(d));
    server.on('data', (d) => frozen || client.write(d));
    client.on('close', () => server.destroy());
    server.on('close', () => client.destroy());
  });
  await new Promise<void>((resolve) => proxy.listen(0, '127.0.0.1', resolve));
  const url = new URL(target?.toString() ?? 'postgres://postgres@127.0.0.1:5432/test');
  url.hostname = '127.0.0.1';
  url.port = String((proxy.address() as AddressInfo).port);
  const db = openPostgres(url.toString(), { max: 1, connectTimeoutMs: 1_000, queryTimeoutMs: 500 });
  try {
    expect(await db.query('SELECT 1 AS one')).toEqual({ rows: [{ one: 1 }] });
    frozen = true;
    const started = Date.now();
    const outcome = await within(
      3_000,
      db.transaction((tx) => tx.query('SELECT 1')),
    );
    expect(outcome).not.toBe('still pending');
    expect((outcome as PromiseSettledResult<unknown>).status).toBe('rejected');
    expect(Date.now() - started).toBeLessThan(3_000);
  } finally {
    await within(2_000, db.close());
    proxy.close();
  }
});

async function postgresAnswers(): Promise<boolean> {
  const { createConnection } = await import('node:net');
  return new Promise((resolve) => {
    const socket = createConnection({ host: '127.0.0.1', port: 5432 });
    socket.setTimeout(500, () => {
      socket.destroy();
      resolve(false);
    });
    socket.on('connect', () => {
      socket.destroy();
      resolve(true);
    });
    socket.on('error', () => resolve(false));
  });
}
