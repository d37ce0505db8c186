import { once } from 'node:events';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Writable } from 'node:stream';
import { freePort, type LocalRedis, startRedisServer } from '@forms/local-services';
import { createLogger, scrubPii } from '@forms/observability';
import { openPglite } from '@forms/worker';
import { Queue } from 'bullmq';
import { Cluster, Redis } from 'ioredis';
import pg from 'pg';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { eventually } from '../support/wait.ts';

// A worker on a Redis Cluster logged `Too many Cluster redirections. Last error: ReplyError: MOVED
// [phone]:46309`, and every stack frame as `([email]:661:38)`: the slot and the node's address read as a
// phone number, the `@` of `.pnpm/ioredis@6.0.0/…` as an email. Here real errors, made live from each library
// (ioredis, Redis itself, pg and Postgres, undici's fetch, BullMQ), some holding a job's personal values, go
// through the scrubber with that job's data, and through the logger: no personal value survives, and every
// diagnostic token (addresses, ports, slot numbers, SQLSTATE and constraint names, stack frames, package
// paths) does. The table of before and after is printed (SCRUB_TABLE=1) for the record.

const job = {
  email: 'ada.lovelace+cv@acme-privacy.io',
  name: 'Ada Lovelace',
  phoneNumber: '+44 7700 900123',
  message: 'Call me after 6pm',
};
/** Each personal value, and the forms it takes in other texts (the phone's digits, any case). */
const PERSONAL = [job.email, job.name, job.phoneNumber, '7700 900123', '7700900123', 'Lovelace'];

type Case = { library: string; error: Error; keep: string[] };
const cases: Case[] = [];
let nodeA: LocalRedis;
let nodeB: LocalRedis;
const dirs: string[] = [];

/** The error `work` rejects with. */
async function errorOf(work: () => Promise<unknown>): Promise<Error> {
  try {
    await work();
  } catch (err) {
    return err as Error;
  }
  throw new Error('expected an error');
}

beforeAll(async () => {
  // Two cluster nodes sharing the slots: a key of B's half asked of A is MOVED to B.
  const clusterNode = async () => {
    const dir = mkdtempSync(join(tmpdir(), 'forms-scrub-'));
    dirs.push(dir);
    return startRedisServer({ dir, args: ['--cluster-enabled', 'yes', '--appendonly', 'no'] });
  };
  [nodeA, nodeB] = await Promise.all([clusterNode(), clusterNode()]);
  const a = new Redis(nodeA.url);
  const b = new Redis(nodeB.url);
  await a.call('CLUSTER', 'ADDSLOTSRANGE', '0', '8191');
  await b.call('CLUSTER', 'ADDSLOTSRANGE', '8192', '16383');
  await a.call('CLUSTER', 'MEET', '127.0.0.1', String(nodeB.port));
  const knowsAll = async (node: Redis) => String(await node.call('CLUSTER', 'INFO')).includes('cluster_state:ok');
  await eventually(async () => (await knowsAll(a)) && (await knowsAll(b)));
  const key = 'submission:{b}'; // whichever node holds its slot, the other one answers MOVED
  const slot = Number(await a.call('CLUSTER', 'KEYSLOT', key));
  const owner = slot >= 8192 ? nodeB : nodeA;
  const other = owner === nodeB ? a : b;
  const moved = await errorOf(() => other.get(key));
  cases.push({ library: 'Redis (MOVED)', error: moved, keep: [`MOVED ${slot} 127.0.0.1:${owner.port}`] });

  // ioredis's Cluster, each redirection mapped back to the node that refused it: it gives up.
  const wrongNode = owner === nodeB ? nodeA : nodeB;
  const cluster = new Cluster([{ host: '127.0.0.1', port: wrongNode.port }], {
    natMap: { [`127.0.0.1:${owner.port}`]: { host: '127.0.0.1', port: wrongNode.port } },
    redisOptions: { maxRetriesPerRequest: 0 },
    maxRedirections: 3,
    clusterRetryStrategy: () => null,
  });
  cluster.on('error', () => {});
  const redirections = await errorOf(() => cluster.get(key));
  cluster.disconnect();
  cases.push({
    library: 'ioredis (Cluster)',
    error: redirections,
    keep: ['Too many Cluster redirections', `MOVED ${slot} 127.0.0.1:${owner.port}`],
  });

  const full = Number(await a.call('CLUSTER', 'KEYSLOT', 'x')) >= 8192 ? b : a;
  await full.config('SET', 'maxmemory', '1');
  const oom = await errorOf(() => full.set('x', '1'));
  await full.config('SET', 'maxmemory', '0');
  cases.push({ library: 'Redis (OOM)', error: oom, keep: ["OOM command not allowed when used memory > 'maxmemory'."] });
  a.disconnect();
  b.disconnect();

  const closed = await freePort();
  // ioredis reports the refusal on its 'error' event (connect() rejects with "Connection is closed.").
  const refused = new Redis(closed, '127.0.0.1', { lazyConnect: true, retryStrategy: () => null });
  const refusal = once(refused, 'error');
  refused.connect().catch(() => {});
  cases.push({
    library: 'ioredis (refused)',
    error: (await refusal)[0] as Error,
    keep: [`connect ECONNREFUSED 127.0.0.1:${closed}`],
  });

  const client = new pg.Client({ connectionString: `postgres://postgres@127.0.0.1:${closed}/forms` });
  cases.push({
    library: 'pg (refused)',
    error: await errorOf(() => client.connect()),
    keep: [`connect ECONNREFUSED 127.0.0.1:${closed}`],
  });

  const db = await openPglite();
  await db.exec(
    `CREATE TABLE people (email text UNIQUE, name text, phone text CHECK (phone NOT LIKE '+44%'));
     INSERT INTO people (email, name) VALUES ('${job.email}', 'x')`,
  );
  const unique = await errorOf(() => db.query('INSERT INTO people (email) VALUES ($1)', [job.email]));
  const check = await errorOf(() =>
    db.query('INSERT INTO people VALUES ($1, $2, $3)', ['b@x.io', job.name, job.phoneNumber]),
  );
  await db.close();
  cases.push({
    library: 'Postgres (unique)',
    error: unique,
    keep: ['duplicate key value violates unique constraint "people_email_key"', 'Key (email)=('],
  });
  cases.push({
    library: 'Postgres (check)',
    error: check,
    keep: ['violates check constraint "people_phone_check"', 'Failing row contains ('],
  });

  cases.push({
    library: 'undici (fetch)',
    error: await errorOf(() => fetch(`http://127.0.0.1:${closed}/v0/appX/Contacts`)),
    keep: ['fetch failed', `connect ECONNREFUSED 127.0.0.1:${closed}`],
  });

  // A queue whose name has no hash tag, on a cluster node: its keys fall in several slots.
  const queue = new Queue(`scrub-${process.pid}`, { connection: { url: nodeB.url } });
  const added = await errorOf(() => queue.add('contact.v1', job));
  const integerId = await errorOf(() => queue.add('contact.v1', job, { jobId: '12345' }));
  await queue.close();
  cases.push({ library: 'BullMQ (add, cluster)', error: added, keep: ['CROSSSLOT'] });
  cases.push({ library: 'BullMQ (add, id)', error: integerId, keep: ['Custom Id cannot be integers'] });
}, 60_000);

afterAll(async () => {
  await Promise.all([nodeA?.stop(), nodeB?.stop()]);
  for (const dir of dirs) rmSync(dir, { recursive: true, force: true });
});

/** The whole of an error as it can be logged: message, detail, stack, and its causes'. */
function fullText(err: unknown, depth = 0): string {
  const e = err as { message?: string; detail?: string; stack?: string; cause?: unknown };
  const own = [e.stack ?? e.message ?? String(err), e.detail ? `detail: ${e.detail}` : ''].filter(Boolean).join('\n');
  return depth < 3 && e.cause ? `${own}\ncause: ${fullText(e.cause, depth + 1)}` : own;
}

/** The stack frames of a text: what names the library, the file and the line. */
const frames = (text: string) => text.split('\n').filter((line) => /^\s+at /.test(line));

it('removes the job’s values and keeps every diagnostic token of real library errors', () => {
  expect(cases.length).toBe(10);
  const scrubbed = cases.map(({ library, error, keep }) => {
    const before = fullText(error);
    return { library, keep, before, after: scrubPii(before, job) };
  });
  if (process.env.SCRUB_TABLE)
    console.log(
      [
        '| library | before | after |',
        '| --- | --- | --- |',
        ...scrubbed.map((s) => `| ${s.library} | ${firstLines(s.before)} | ${firstLines(s.after)} |`),
      ].join('\n'),
    );
  for (const { library, keep, before, after } of scrubbed) {
    for (const token of keep) {
      expect(before, library).toContain(token); // the error says it, or the check proves nothing
      expect(after, library).toContain(token);
    }
    // Every frame (package paths with their @version, file:line:column) comes through as it was.
    expect(frames(before).length, library).toBeGreaterThan(0);
    expect(frames(after), library).toEqual(frames(before));
    for (const value of PERSONAL) expect(after.toLowerCase(), library).not.toContain(value.toLowerCase());
  }
  // The job's values were in the texts: a scrub of texts without them would prove nothing.
  const all = scrubbed.map((s) => s.before).join('\n');
  for (const value of [job.email, job.name, job.phoneNumber]) expect(all).toContain(value);
});

it('without the job’s data, the logger still drops what is shaped like an email or a phone, and keeps the rest', () => {
  const lines: string[] = [];
  const logger = createLogger(
    { level: 'info' },
    new Writable({
      write(chunk, _enc, done) {
        lines.push(String(chunk));
        done();
      },
    }),
  );
  for (const { library, error } of cases) logger.warn({ err: error, library }, 'failed');
  const logged = lines.join('');
  for (const value of [job.email, job.phoneNumber, '7700 900123']) expect(logged).not.toContain(value);
  for (const { library, error, keep } of cases) {
    const line = lines.find((l) => l.includes(`"library":"${library}"`))!;
    // The message's diagnostics survive (the detail is not logged at all: see safeError).
    for (const token of keep.filter((t) => error.message.includes(t)))
      expect(line, library).toContain(JSON.stringify(token).slice(1, -1));
    for (const frame of frames(error.stack ?? '')) expect(line, library).toContain(frame.trim());
  }
});

/** A table cell: the text's lines other than frames, and its first frame in a package. */
function firstLines(text: string): string {
  const lines = text.split('\n');
  const frame = lines.find((line) => /^\s+at .*\.pnpm\//.test(line));
  return [...lines.filter((line) => !/^\s+at /.test(line)), ...(frame ? [frame] : [])]
    .map((line) => line.trim().replace(/\/\S*\/node_modules\/\.pnpm\//, '…/.pnpm/'))
    .join(' ⏎ ')
    .replaceAll('|', '\\|');
}
