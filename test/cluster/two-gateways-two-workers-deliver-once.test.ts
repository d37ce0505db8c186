import { randomUUID } from 'node:crypto';
import { type LocalRedisCluster, startRedisCluster } from '@forms/local-services';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type FakeAirtable, startFakeAirtable } from '../support/airtable-server.ts';
import { openTestDatabase, sharedPostgresUrl, type TestDatabase } from '../support/crm-database.ts';
import { type GatewayProcess, spawnGateway, spawnWorker, type WorkerProcess } from '../support/spawn-app.ts';
import { type Answer, compareDelivery, countStatuses, submitMany } from '../support/submit-many.ts';
import { eventually } from '../support/wait.ts';

// Two gateway and two worker processes on a real 3-master, 3-replica Redis Cluster: every acknowledged
// submission lands once in the store the workers share. The queue lives in one slot ({forms}); the
// contact index sits beside it; the Airtable limiter's keys share their base's slot.
const TOTAL = 2_000;
const postgresUrl = await sharedPostgresUrl();
let cluster: LocalRedisCluster;
let processes: (GatewayProcess | WorkerProcess)[] = [];

beforeAll(async () => {
  cluster = await startRedisCluster();
}, 60_000);

afterAll(async () => {
  await stopAll();
  await cluster?.stop();
}, 60_000);

async function stopAll() {
  for (const p of processes) p.child.kill('SIGTERM');
  await Promise.all(processes.map((p) => p.exited));
  processes = [];
}

/** Two workers and two gateways on the cluster, one queue of their own; returns the gateways' URLs. */
async function startProcesses(workerEnv: Record<string, string>): Promise<string[]> {
  // All the load comes from 127.0.0.1: the per-client limit (600/min by default) would answer it 429.
  const env = { REDIS_CLUSTER_NODES: cluster.seeds, QUEUE_NAME: `two-${randomUUID()}`, RATE_LIMIT_REQUESTS: '0' };
  const workers = await Promise.all([spawnWorker({ ...env, ...workerEnv }), spawnWorker({ ...env, ...workerEnv })]);
  const gateways = await Promise.all([spawnGateway(env), spawnGateway(env)]);
  processes.push(...workers, ...gateways);
  return gateways.map((g) => g.url);
}

/** Sends TOTAL submissions through both gateways and prints the rate the two of them took them at. */
async function submitAll(urls: string[], tag: string, store: string): Promise<Answer[]> {
  const started = Date.now();
  const answers = await submitMany({ urls, count: TOTAL, concurrency: 32, tag });
  const seconds = (Date.now() - started) / 1000;
  console.log(
    `[cluster] two gateways (${store}): ${TOTAL} submissions in ${seconds.toFixed(1)} s = ${Math.round(TOTAL / seconds)}/s`,
  );
  expect(countStatuses(answers)).toEqual({ 200: TOTAL });
  return answers;
}

describe.runIf(postgresUrl)('two gateways and two workers on a Redis Cluster, Postgres store', () => {
  let store: TestDatabase;
  afterAll(async () => {
    await stopAll();
    await store?.close();
  });

  it('delivers each of 2,000 mixed submissions exactly once', async () => {
    store = await openTestDatabase({ adminUrl: postgresUrl });
    const urls = await startProcesses(store.workerEnv);
    const tag = `pg${Date.now().toString(36)}`;
    const answers = await submitAll(urls, tag, 'Postgres');

    const db = await store.read();
    const delivered = async () => {
      const { rows } = await db.query<{ email: string; n: number }>(
        'SELECT email, count(*)::int AS n FROM submissions WHERE email LIKE $1 GROUP BY email',
        [`${tag}-%`],
      );
      return new Map(rows.map((r) => [r.email, r.n]));
    };
    await eventually(async () => (await delivered()).size >= TOTAL, { timeoutMs: 120_000, everyMs: 500 });
    expect(compareDelivery(answers, await delivered())).toEqual({ acknowledged: TOTAL, lost: [], duplicated: [] });
  }, 240_000);
});

describe('two gateways and two workers on a Redis Cluster, local Airtable server', () => {
  const BASE = `appCluster${Date.now().toString(36)}`;
  const KEY = 'patCluster';
  // The limiter spaces sends in Redis; the fake counts arrivals. With gateways and the load generator on the
  // same two busy cores, a descheduled worker's sends arrive bunched: at 20/s with a 0.15 margin that made
  // 13 429s in one run, at 10/s 4. A 0.3 margin (7/s) leaves room for that jitter; unshared, the two
  // processes would still send 1.4 times the limit and meet a 429.
  const LIMIT = 10;
  let server: FakeAirtable;
  afterAll(async () => {
    await stopAll();
    await server?.close();
  });

  it('delivers each of 2,000 mixed submissions exactly once, within the base rate limit shared by both workers', async () => {
    // The fake enforces the limit strictly: any second holding more than LIMIT requests is a 429 and a
    // lock-out longer than this test.
    server = await startFakeAirtable({
      apiKey: KEY,
      rateLimit: { requests: LIMIT, windowMs: 1_000, lockoutMs: 120_000 },
    });
    const urls = await startProcesses({
      AIRTABLE_API_KEY: KEY,
      AIRTABLE_BASE_ID: BASE,
      AIRTABLE_ENDPOINT_URL: server.url,
      AIRTABLE_RATE_LIMIT: String(LIMIT),
      AIRTABLE_RATE_MARGIN: '0.3',
    });
    const tag = `at${Date.now().toString(36)}`;
    const answers = await submitAll(urls, tag, 'Airtable');

    const delivered = () => {
      const counts = new Map<string, number>();
      for (const table of server.tables(BASE)) {
        for (const record of server.records(BASE, table)) {
          const email = String(record.fields.Email);
          counts.set(email, (counts.get(email) ?? 0) + 1);
        }
      }
      return counts;
    };
    await eventually(async () => delivered().size >= TOTAL, { timeoutMs: 150_000, everyMs: 500 });
    expect(compareDelivery(answers, delivered())).toEqual({ acknowledged: TOTAL, lost: [], duplicated: [] });

    expect(server.stats.rateLimited).toBe(0);
    const times = server.stats.log.filter((l) => l.baseId === BASE).map((l) => l.at);
    for (let i = 0; i + LIMIT < times.length; i++) expect(times[i + LIMIT]! - times[i]!).toBeGreaterThanOrEqual(1_000);
    const seconds = (times.at(-1)! - times[0]!) / 1000;
    console.log(
      `[cluster] airtable: ${server.stats.requests} requests in ${seconds.toFixed(1)} s = ${(server.stats.requests / seconds).toFixed(1)}/s (limit ${LIMIT}), 0 429s`,
    );
  }, 300_000);
});
