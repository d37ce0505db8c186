/**
 * `pnpm bench:burst [--submissions 50000] [--airtable-seconds 60] [--concurrency 100]`: a launch-day burst.
 *
 * 1. 50,000 submissions (the realistic mix of `bench-requests.ts`, 1,000 client addresses, the rate limit
 *    and honeypot check on) sent to a gateway process as fast as autocannon can (50 connections), no
 *    worker running. Prints acknowledged and non-2xx counts and the acknowledgement rate, and Redis's
 *    memory per queued job from `INFO memory` before and after, plus `MEMORY USAGE` of one job and one
 *    contact-index key. The backlog (every job's name, data and options) is kept, to drain it again below.
 * 2. The worker drains it into Airtable (the local server, 5 requests/s × 10 records = 50 records/s at
 *    best) for a bounded window only (`--airtable-seconds`, 0 skips it): all 50,000 would take about 17
 *    minutes, so the rate measured in the window is extrapolated, and said to be.
 * 3. A worker (`--concurrency` jobs at once) drains the rest into the Postgres store (DATABASE_URL, else
 *    PGlite), timed from the worker being ready to the last job. Then the same whole backlog, copied into
 *    a queue of its own each time, drained by: BullMQ alone (a worker whose processor does nothing, in
 *    this process, at the same concurrency: BullMQ's own cost per job, the bound of any CRM); our worker with
 *    every spam layer off (SPAM_FILTER=off, rules that hold nothing), beside the first drain's judge on
 *    its defaults, as a ratio of their rates and CPU per job; PGlite, when
 *    DATABASE_URL is set; and, with `BENCH_AGAINST=<another installed checkout>`, that checkout's worker
 *    into a fresh database of the same kind (before and after, in one run). Each as jobs/s and as a share of
 *    the acknowledgement rate, with the CPU its worker process spent per job (and, for a PostgreSQL on this
 *    machine, the CPU of the database's server processes per job).
 * 4. Delivered once: the submission ids in the Airtable server and in Postgres are disjoint, and together
 *    they are exactly the job ids Redis held after the burst; each copy's store holds exactly its ids.
 * Everything on 127.0.0.1, each step bounded in time.
 */
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { parseArgs } from 'node:util';
import { startRedisServer } from '@forms/local-services';
import autocannon from 'autocannon';
import { type JobsOptions, Queue, Worker } from 'bullmq';
import { Redis } from 'ioredis';
import pg from 'pg';
import { startFakeAirtable } from '../support/airtable-server.ts';
import { openTestDatabase, type TestDatabase } from '../support/crm-database.ts';
import { procStat } from '../support/proc.ts';
import { spawnGateway, spawnWorker } from '../support/spawn-app.ts';
import { sleep } from '../support/wait.ts';
import { mixedRequests } from './bench-requests.ts';

const { values } = parseArgs({
  options: {
    submissions: { type: 'string', default: '50000' },
    'airtable-seconds': { type: 'string', default: '60' },
    concurrency: { type: 'string', default: '100' },
  },
});
const total = Math.max(1_000, Math.min(200_000, Number(values.submissions)));
const airtableSeconds =
  Number(values['airtable-seconds']) === 0 ? 0 : Math.max(10, Math.min(600, Number(values['airtable-seconds'])));
const concurrency = Math.max(1, Math.min(1_000, Number(values.concurrency)));
const against = process.env.BENCH_AGAINST ? `${resolve(process.env.BENCH_AGAINST)}/` : undefined;
const queueName = 'burst';
const KEY = 'patBurst';
const BASE = 'appBurst';

const redisServer = await startRedisServer();
const redis = new Redis(redisServer.url, { maxRetriesPerRequest: null });
const queue = new Queue(queueName, { connection: redis });
const airtable = await startFakeAirtable({
  apiKey: KEY,
  rateLimit: { requests: 5, windowMs: 1_000, lockoutMs: 30_000 },
});
const store = await openTestDatabase({ shareable: true });
const stores: TestDatabase[] = [store];
const stopAll: (() => unknown)[] = [];
const usedMemory = async () => Number(/used_memory:(\d+)/.exec(await redis.info('memory'))![1]);
const kib = (bytes: number) => `${(bytes / 1024).toFixed(2)} KiB`;
const storeKind = process.env.DATABASE_URL ? 'Postgres' : 'PGlite';

type Backlogged = { name: string; data: unknown; opts: JobsOptions };
type Drained = { jobs: number; seconds: number; failed: number; cpuUsPerJob: number; dbCpuUsPerJob?: number };

/**
 * Starts a consumer of `q` (resolving once it is ready, with how to stop it and its CPU so far), then
 * times it from then until the queue holds no job waiting or active, counting only the jobs it completed
 * after it was ready. Bounded at 15 minutes.
 */
async function drain(
  q: Queue,
  start: () => Promise<{ stop: () => Promise<void>; cpuUs: () => number }>,
  databaseUrl?: string,
): Promise<Drained> {
  const consumer = await start();
  const startedAt = Date.now();
  const cpuBefore = consumer.cpuUs();
  const dbBefore = await backendCpu(databaseUrl);
  const before = await q.getCompletedCount();
  const deadline = startedAt + 15 * 60_000;
  while (Date.now() < deadline && (await q.getJobCountByTypes('wait', 'active', 'delayed', 'prioritized')) > 0)
    await sleep(50);
  const seconds = (Date.now() - startedAt) / 1000;
  const jobs = (await q.getCompletedCount()) - before;
  const cpuUs = consumer.cpuUs() - cpuBefore;
  let dbCpuUs = 0;
  for (const [pid, us] of await backendCpu(databaseUrl)) dbCpuUs += us - (dbBefore.get(pid) ?? 0);
  await consumer.stop();
  const perJob = (us: number) => us / Math.max(1, jobs);
  return {
    jobs,
    seconds,
    failed: await q.getFailedCount(),
    cpuUsPerJob: perJob(cpuUs),
    ...(dbCpuUs > 0 ? { dbCpuUsPerJob: perJob(dbCpuUs) } : {}),
  };
}

/**
 * CPU (µs) of each server process of the database at `url`, by pid, from /proc: for a PostgreSQL on this
 * machine (elsewhere, none is found). Each connection of the worker's pool is one such process.
 */
async function backendCpu(url: string | undefined): Promise<Map<number, number>> {
  const cpu = new Map<number, number>();
  if (!url) return cpu;
  const client = new pg.Client({ connectionString: url });
  await client.connect();
  try {
    const { rows } = await client.query<{ pid: number }>(
      'SELECT pid FROM pg_stat_activity WHERE datname = current_database() AND pid <> pg_backend_pid()',
    );
    for (const { pid } of rows) {
      const f = procStat(pid);
      if (f) cpu.set(pid, (Number(f[11]) + Number(f[12])) * 10_000);
    }
  } finally {
    await client.end();
  }
  return cpu;
}

/** A worker process of this checkout (or of `root`, another one), with its CPU from /proc. */
async function workerProcess(env: Record<string, string>, root?: string) {
  const w = await spawnWorker({ REDIS_URL: redisServer.url, WORKER_CONCURRENCY: String(concurrency), ...env }, root);
  stopAll.push(() => w.child.kill('SIGKILL'));
  return {
    cpuUs: () => {
      const f = procStat(w.child.pid!);
      return f ? (Number(f[11]) + Number(f[12])) * 10_000 : 0;
    },
    stop: async () => {
      w.child.kill('SIGTERM');
      await w.exited;
    },
  };
}

/** The same backlog in a queue of its own, `name`. */
async function copyBacklog(name: string, backlog: Backlogged[]): Promise<Queue> {
  const copy = new Queue(name, { connection: redis });
  for (let i = 0; i < backlog.length; i += 1_000) await copy.addBulk(backlog.slice(i, i + 1_000));
  return copy;
}

/** Whether the store holds exactly `ids`, each once. */
async function holdsExactly(db: TestDatabase, ids: string[]): Promise<boolean> {
  const { rows } = await (await db.read()).query<{ id: string }>('SELECT id FROM submissions');
  const stored = new Set(rows.map((r) => r.id));
  return stored.size === rows.length && stored.size === ids.length && ids.every((id) => stored.has(id));
}

function line(what: string, d: Drained, ackRate: number) {
  const rate = d.jobs / d.seconds;
  return `${what}: ${d.jobs} in ${d.seconds.toFixed(1)} s = ${rate.toFixed(0)}/s, ${(rate / ackRate).toFixed(2)} of the ack rate; CPU per job: worker ${d.cpuUsPerJob.toFixed(0)} µs${d.dbCpuUsPerJob === undefined ? '' : `, Postgres ${d.dbCpuUsPerJob.toFixed(0)} µs`}; failed: ${d.failed}`;
}

try {
  // 1. The burst.
  const gateway = await spawnGateway({ REDIS_URL: redisServer.url, QUEUE_NAME: queueName, TRUST_PROXY: 'true' });
  stopAll.push(() => gateway.child.kill('SIGKILL'));
  await redis.call('MEMORY', 'PURGE').catch(() => {});
  const before = await usedMemory();
  const started = Date.now();
  const result = await autocannon({
    url: gateway.url,
    connections: 50,
    amount: total,
    requests: mixedRequests('burst'),
    timeout: 10,
  });
  const seconds = (Date.now() - started) / 1000;
  const ackRate = result['2xx'] / seconds;
  gateway.child.kill('SIGTERM');
  await gateway.exited;
  const after = await usedMemory();
  const queued = await queue.getWaitingCount();
  const [sampleJob] = await redis.lrange(`bull:${queueName}:wait`, 0, 0);
  const jobBytes = Number(await redis.call('MEMORY', 'USAGE', `bull:${queueName}:${sampleJob}`));
  const [, contactKeys] = await redis.scan('0', 'MATCH', `bull:${queueName}:contact:*`, 'COUNT', 1000);
  const contactBytes = Number(await redis.call('MEMORY', 'USAGE', contactKeys[0]!));
  const contacts = (await redis.keys(`bull:${queueName}:contact:*`)).length;
  console.log(
    `burst: ${total} sent in ${seconds.toFixed(1)} s (${ackRate.toFixed(0)} acks/s): ${result['2xx']} acknowledged, ${result.non2xx} non-2xx, ${result.errors + result.timeouts} errors; ${queued} jobs queued`,
  );
  console.log(
    `Redis: ${kib(before)} before, ${kib(after)} after: ${kib((after - before) / queued)} per queued job, everything included (job hash, wait list, contact index for ${contacts} contact emails, rate-limit keys); one job hash ${jobBytes} B, one contact-index key ${contactBytes} B`,
  );
  const ids = await redis.lrange(`bull:${queueName}:wait`, 0, -1);
  const backlog: Backlogged[] = [];
  for (let i = 0; i < queued; i += 1_000)
    for (const job of await queue.getWaiting(i, i + 999))
      backlog.push({ name: job.name, data: job.data, opts: { ...job.opts, jobId: job.id } });

  // 2. Airtable, for a bounded window.
  const base = { REDIS_URL: redisServer.url, QUEUE_NAME: queueName };
  let inAirtable = 0;
  if (airtableSeconds > 0) {
    const toAirtable = await spawnWorker({
      ...base,
      AIRTABLE_API_KEY: KEY,
      AIRTABLE_BASE_ID: BASE,
      AIRTABLE_ENDPOINT_URL: airtable.url,
    });
    stopAll.push(() => toAirtable.child.kill('SIGKILL'));
    const airtableStart = Date.now();
    await sleep(airtableSeconds * 1000);
    inAirtable = await queue.getCompletedCount();
    const airtableElapsed = (Date.now() - airtableStart) / 1000;
    toAirtable.child.kill('SIGTERM');
    await toAirtable.exited;
    const airtableRate = inAirtable / airtableElapsed;
    console.log(
      `Airtable: ${inAirtable} delivered in ${airtableElapsed.toFixed(0)} s (worker start included) = ${airtableRate.toFixed(1)} records/s (ceiling 50); all ${queued} would take about ${(queued / airtableRate / 60).toFixed(1)} min (extrapolated, not run); 429s: ${airtable.stats.rateLimited}`,
    );
  }

  // 3. Postgres, to the end; then the same backlog again, through BullMQ alone, PGlite, and the other checkout.
  const ours = await drain(
    queue,
    () => workerProcess({ ...store.workerEnv, QUEUE_NAME: queueName }),
    store.workerEnv.DATABASE_URL,
  );
  console.log(
    line(`${storeKind} (${concurrency} jobs at once)${inAirtable ? ', the rest after Airtable' : ''}`, ours, ackRate),
  );
  const copies: { name: string; store?: TestDatabase; queue: Queue }[] = [];
  const noop = await copyBacklog('burst-noop', backlog);
  copies.push({ name: 'noop', queue: noop });
  const bare = await drain(noop, async () => {
    const worker = new Worker('burst-noop', async () => {}, {
      connection: { url: redisServer.url },
      concurrency,
    });
    await worker.waitUntilReady();
    const cpu = () => {
      const { user, system } = process.cpuUsage();
      return user + system;
    };
    return { cpuUs: cpu, stop: () => worker.close() };
  });
  console.log(line('BullMQ alone (a processor that does nothing, same concurrency, same backlog)', bare, ackRate));
  // The judge's cost: the same backlog drained with every spam layer off, into a store of the same kind.
  const layersOff = join(mkdtempSync(join(tmpdir(), 'burst-')), 'rules.json');
  writeFileSync(layersOff, JSON.stringify({ '*': { disposableDomains: false, maxLinks: 1e9, suspectLinks: 1e9 } }));
  const offStore = await openTestDatabase({ shareable: true });
  stores.push(offStore);
  const offQueue = await copyBacklog('burst-judge-off', backlog);
  copies.push({ name: 'every spam layer off', store: offStore, queue: offQueue });
  const off = await drain(
    offQueue,
    () =>
      workerProcess({
        ...offStore.workerEnv,
        QUEUE_NAME: 'burst-judge-off',
        SPAM_FILTER: 'off',
        SPAM_RULES_FILE: layersOff,
      }),
    offStore.workerEnv.DATABASE_URL,
  );
  console.log(line(`every spam layer off, ${storeKind}, same backlog`, off, ackRate));
  console.log(
    `judge on its defaults ÷ every layer off: jobs/s ${(ours.jobs / ours.seconds / (off.jobs / off.seconds)).toFixed(3)}, worker CPU per job ${(ours.cpuUsPerJob / off.cpuUsPerJob).toFixed(3)}`,
  );
  if (against) {
    const againstStore = await openTestDatabase({ shareable: true });
    stores.push(againstStore);
    const q = await copyBacklog('burst-against', backlog);
    copies.push({ name: 'against', store: againstStore, queue: q });
    const d = await drain(
      q,
      () => workerProcess({ ...againstStore.workerEnv, QUEUE_NAME: 'burst-against' }, against),
      againstStore.workerEnv.DATABASE_URL,
    );
    console.log(line(`against (${against}), ${storeKind}, same backlog`, d, ackRate));
  }
  if (process.env.DATABASE_URL) {
    const pglite = await openTestDatabase({ shareable: true, adminUrl: '' }); // no server: PGlite
    stores.push(pglite);
    const q = await copyBacklog('burst-pglite', backlog);
    copies.push({ name: 'PGlite', store: pglite, queue: q });
    const d = await drain(q, () => workerProcess({ ...pglite.workerEnv, QUEUE_NAME: 'burst-pglite' }));
    console.log(line('PGlite, same backlog', d, ackRate));
  }

  // 4. Exactly once, across both stores; and each copy's store holds its backlog once.
  const { rows } = await (await store.read()).query<{ id: string }>('SELECT id FROM submissions');
  const inStore = rows.map((r) => r.id);
  const inFake = airtable
    .tables(BASE)
    .flatMap((t) => airtable.records(BASE, t).map((r) => String(r.fields['Submission ID'])));
  const delivered = new Set([...inStore, ...inFake]);
  let once =
    delivered.size === inStore.length + inFake.length &&
    delivered.size === ids.length &&
    ids.every((id) => delivered.has(id));
  console.log(
    `delivered once: ${once ? 'yes' : 'NO'} (${inFake.length} in Airtable + ${inStore.length} in ${storeKind} = ${delivered.size} distinct of ${ids.length} queued; acknowledged ${result['2xx']})`,
  );
  for (const copy of copies) {
    if (!copy.store) continue;
    const exact = await holdsExactly(copy.store, ids);
    once &&= exact;
    console.log(`delivered once, ${copy.name}: ${exact ? 'yes' : 'NO'}`);
  }
  for (const copy of copies) await copy.queue.close();
  if (!once || result.non2xx > 0 || queued < result['2xx']) process.exitCode = 1;
} finally {
  for (const stop of stopAll) stop();
  await queue.close();
  redis.disconnect();
  await airtable.close();
  for (const s of stores) await s.close();
  await redisServer.stop();
}
