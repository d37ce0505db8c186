/**
 * `pnpm bench:burst [--submissions 50000] [--airtable-seconds 60]`: a launch-day burst.
 *
 * 1. 50,000 submissions (the realistic mix of `bench-requests.ts`, 1,000 client addresses, the rate limit
 *    and honeypot check on) sent to a gateway process as fast as autocannon can (50 connections), no
 *    worker running. Prints acknowledged and non-2xx counts, and Redis's memory per queued job from
 *    `INFO memory` before and after, plus `MEMORY USAGE` of one job and one contact-index key.
 * 2. The worker drains it into Airtable (the local server, 5 requests/s × 10 records = 50 records/s at
 *    best) for a bounded window only (`--airtable-seconds`): all 50,000 would take about 17 minutes, so
 *    the rate measured in the window is extrapolated, and said to be.
 * 3. A worker drains the rest into the Postgres store (DATABASE_URL, else PGlite), timed to the end.
 * 4. Delivered once: the submission ids in the Airtable server and in Postgres are disjoint, and together
 *    they are exactly the job ids Redis held after the burst.
 * Everything on 127.0.0.1, each step bounded in time.
 */
import { parseArgs } from 'node:util';
import { startRedisServer } from '@forms/local-services';
import autocannon from 'autocannon';
import { Queue } from 'bullmq';
import { Redis } from 'ioredis';
import { startFakeAirtable } from '../support/airtable-server.ts';
import { openTestDatabase } from '../support/crm-database.ts';
import { spawnGateway, spawnWorker } from '../support/spawn-app.ts';
import { sleep } from '../support/wait.ts';
import { mixedRequests } from './bench-requests.ts';

const { values } = parseArgs({
  options: {
    submissions: { type: 'string', default: '50000' },
    'airtable-seconds': { type: 'string', default: '60' },
  },
});
const total = Math.max(1_000, Math.min(200_000, Number(values.submissions)));
const airtableSeconds = Math.max(10, Math.min(600, Number(values['airtable-seconds'])));
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
const stopAll: (() => unknown)[] = [];
const usedMemory = async () => Number(/used_memory:(\d+)/.exec(await redis.info('memory'))![1]);
const kib = (bytes: number) => `${(bytes / 1024).toFixed(2)} KiB`;

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
    `burst: ${total} sent in ${seconds.toFixed(1)} s (${(result['2xx'] / seconds).toFixed(0)} acks/s): ${result['2xx']} acknowledged, ${result.non2xx} non-2xx, ${result.errors + result.timeouts} errors; ${queued} jobs queued`,
  );
  console.log(
    `Redis: ${kib(before)} before, ${kib(after)} after: ${kib((after - before) / queued)} per queued job, everything included (job hash, wait list, contact index for ${contacts} contact emails, rate-limit keys); one job hash ${jobBytes} B, one contact-index key ${contactBytes} B`,
  );
  const ids = await redis.lrange(`bull:${queueName}:wait`, 0, -1);

  // 2. Airtable, for a bounded window.
  const base = { REDIS_URL: redisServer.url, QUEUE_NAME: queueName };
  const toAirtable = await spawnWorker({
    ...base,
    AIRTABLE_API_KEY: KEY,
    AIRTABLE_BASE_ID: BASE,
    AIRTABLE_ENDPOINT_URL: airtable.url,
  });
  stopAll.push(() => toAirtable.child.kill('SIGKILL'));
  const airtableStart = Date.now();
  await sleep(airtableSeconds * 1000);
  const inAirtable = await queue.getCompletedCount();
  const airtableElapsed = (Date.now() - airtableStart) / 1000;
  toAirtable.child.kill('SIGTERM');
  await toAirtable.exited;
  const airtableRate = inAirtable / airtableElapsed;
  console.log(
    `Airtable: ${inAirtable} delivered in ${airtableElapsed.toFixed(0)} s (worker start included) = ${airtableRate.toFixed(1)} records/s (ceiling 50); all ${queued} would take about ${(queued / airtableRate / 60).toFixed(1)} min (extrapolated, not run); 429s: ${airtable.stats.rateLimited}`,
  );

  // 3. Postgres, to the end.
  const toPostgres = await spawnWorker({ ...base, ...store.workerEnv, WORKER_CONCURRENCY: '50' });
  stopAll.push(() => toPostgres.child.kill('SIGKILL'));
  const pgStart = Date.now();
  const deadline = pgStart + 15 * 60_000;
  let done = 0;
  while (Date.now() < deadline) {
    done = await queue.getCompletedCount();
    if (done + (await queue.getFailedCount()) >= queued) break;
    await sleep(500);
  }
  const pgSeconds = (Date.now() - pgStart) / 1000;
  toPostgres.child.kill('SIGTERM');
  await toPostgres.exited;
  const db = await store.read();
  const { rows } = await db.query<{ id: string }>('SELECT id FROM submissions');
  console.log(
    `Postgres (${process.env.DATABASE_URL ? 'DATABASE_URL' : 'PGlite'}, 50 jobs at once): the other ${rows.length} delivered in ${pgSeconds.toFixed(1)} s (worker start included) = ${(rows.length / pgSeconds).toFixed(0)} submissions/s; failed: ${await queue.getFailedCount()}`,
  );

  // 4. Exactly once, across both stores.
  const inStore = rows.map((r) => r.id);
  const inFake = airtable
    .tables(BASE)
    .flatMap((t) => airtable.records(BASE, t).map((r) => String(r.fields['Submission ID'])));
  const delivered = new Set([...inStore, ...inFake]);
  const once =
    delivered.size === inStore.length + inFake.length &&
    delivered.size === ids.length &&
    ids.every((id) => delivered.has(id));
  console.log(
    `delivered once: ${once ? 'yes' : 'NO'} (${inFake.length} in Airtable + ${inStore.length} in Postgres = ${delivered.size} distinct of ${ids.length} queued; acknowledged ${result['2xx']})`,
  );
  if (!once || result.non2xx > 0 || queued < result['2xx']) process.exitCode = 1;
} finally {
  for (const stop of stopAll) stop();
  await queue.close();
  redis.disconnect();
  await airtable.close();
  await store.close();
  await redisServer.stop();
}
