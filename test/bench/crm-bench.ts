/**
 * `pnpm bench:crm [--workers 2] [--submissions 3000]`: drains a backlog of submissions into the local
 * Airtable server limited like the real one (5 requests/s per base, 30 s lock-out) and prints records/s,
 * requests/s, 429s and the ratio to the 50 records/s ceiling (10 records × 5 requests). Everything runs
 * on 127.0.0.1: its own redis-server on a free port, the fake Airtable, and the workers as child processes.
 */
import { parseArgs } from 'node:util';
import { startRedisServer } from '@forms/local-services';
import { loadAirtableMapping } from '@forms/worker';
import { Queue } from 'bullmq';
import { startFakeAirtable } from '../support/airtable-server.ts';
import { checkDelivery, enqueueSubmissions, mixedSubmissions, waitForDrain } from '../support/airtable-submissions.ts';
import { spawnWorker, type WorkerProcess } from '../support/spawn-app.ts';
import { sleep } from '../support/wait.ts';

const { values } = parseArgs({
  options: {
    workers: { type: 'string', default: '1' },
    submissions: { type: 'string', default: '3000' },
    'rate-limit': { type: 'string', default: '5' },
  },
});
const workers = Math.max(1, Math.min(8, Number(values.workers)));
const total = Math.max(100, Math.min(50_000, Number(values.submissions)));
const rateLimit = Number(values['rate-limit']);
const ceiling = rateLimit * 10;

const KEY = 'patBench';
const BASE = 'appBench';
const redis = await startRedisServer();
const server = await startFakeAirtable({
  apiKey: KEY,
  rateLimit: { requests: rateLimit, windowMs: 1_000, lockoutMs: 30_000 },
});
const queueName = 'crm-bench';
const queue = new Queue(queueName, { connection: { url: redis.url } });
const running: WorkerProcess[] = [];

try {
  const submissions = mixedSubmissions(total);
  await enqueueSubmissions(queue, submissions);
  console.log(
    `backlog: ${total} submissions; ${workers} worker process(es); Airtable limit ${rateLimit} requests/s per base`,
  );

  const env = {
    REDIS_URL: redis.url,
    QUEUE_NAME: queueName,
    AIRTABLE_API_KEY: KEY,
    AIRTABLE_BASE_ID: BASE,
    AIRTABLE_ENDPOINT_URL: server.url,
    AIRTABLE_RATE_LIMIT: String(rateLimit),
    LOG_LEVEL: 'info',
  };
  const started = Date.now();
  running.push(...(await Promise.all(Array.from({ length: workers }, () => spawnWorker({ ...env })))));

  // Bounded: three times the time the ceiling allows, plus start-up.
  const done = await waitForDrain(queue, total, (total / ceiling) * 3_000 + 60_000);
  const finished = Date.now();
  const first = server.stats.log[0]?.at ?? started;
  const seconds = (finished - first) / 1000;
  const check = checkDelivery(server, BASE, submissions, loadAirtableMapping());
  const recordsPerSecond = done.completed / seconds;

  console.log(
    `drained in ${seconds.toFixed(1)} s (first request to last job; ${((first - started) / 1000).toFixed(1)} s of worker start-up before it)`,
  );
  console.log(`records/s:  ${recordsPerSecond.toFixed(1)}`);
  console.log(
    `requests/s: ${(server.stats.requests / seconds).toFixed(2)}  (${server.stats.requests} requests, ${(server.stats.recordsWritten / Math.max(1, server.stats.batchSizes.length)).toFixed(2)} records each)`,
  );
  console.log(`429s:       ${server.stats.rateLimited}`);
  console.log(`records per request: ${histogram(server.stats.batchSizes)}`);
  console.log(
    `tightest ${rateLimit + 1} consecutive requests spanned ${tightestSpan(
      server.stats.log.map((l) => l.at),
      rateLimit + 1,
    )} ms (a 429 below 1000)`,
  );
  console.log(`ratio to the ${ceiling} records/s ceiling: ${(recordsPerSecond / ceiling).toFixed(3)}`);
  console.log(
    `jobs: ${done.completed} completed, ${done.failed} failed; records: ${check.found} for ${check.expected} expected; lost ${check.lost.length}, duplicated ${check.duplicated.length}`,
  );
  process.exitCode = check.lost.length === 0 && check.duplicated.length === 0 && done.failed === 0 ? 0 : 1;
} finally {
  for (const w of running) w.child.kill('SIGTERM');
  await Promise.race([Promise.all(running.map((w) => w.exited)), sleep(10_000)]);
  for (const w of running) if (w.child.exitCode === null) w.child.kill('SIGKILL');
  await queue.close();
  await server.close();
  await redis.stop();
}

function histogram(sizes: number[]): string {
  const counts = new Map<number, number>();
  for (const n of sizes) counts.set(n, (counts.get(n) ?? 0) + 1);
  return [...counts]
    .sort((a, b) => b[0] - a[0])
    .map(([n, c]) => `${n}×${c}`)
    .join(' ');
}

/** The shortest time covering `n` consecutive requests: how close the senders came to the limit. */
function tightestSpan(times: number[], n: number): number | string {
  let best = Infinity;
  for (let i = 0; i + n - 1 < times.length; i++) best = Math.min(best, times[i + n - 1]! - times[i]!);
  return Number.isFinite(best) ? best : 'n/a';
}
