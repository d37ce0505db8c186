/**
 * `pnpm bench:gateway`: how fast the gateway acknowledges submissions, against a bare baseline.
 * 1. bare node:http answering fixed JSON (the ceiling of this machine);
 * 2. the gateway: POST /api/contact, validated, indexed and enqueued in a real Redis.
 * Prints req/s and latency percentiles of each, and the share of the baseline. Traffic goes only to
 * 127.0.0.1; each run is bounded in time (BENCH_SECONDS, default 10).
 */
import { createServer } from 'node:http';
import { once } from 'node:events';
import type { AddressInfo } from 'node:net';
import autocannon from 'autocannon';
import { Queue } from 'bullmq';
import { Redis } from 'ioredis';
import { loadConfig, startGateway } from '@forms/gateway';
import { startRedisServer } from '@forms/local-services';

const seconds = Number(process.env.BENCH_SECONDS ?? 10);
const connections = 50;

async function run(title: string, url: string, requests: autocannon.Request[]) {
  const result = await autocannon({ title, url, connections, duration: seconds, requests });
  const { requests: r, latency: l, non2xx, errors } = result;
  console.log(`${title.padEnd(34)} ${r.average.toFixed(0).padStart(7)} req/s   p50 ${l.p50} ms   p99 ${l.p99} ms   max ${l.max} ms   non-2xx ${non2xx}   errors ${errors}`);
  return result;
}

const bare = createServer((_req, res) => {
  res.writeHead(200, { 'content-type': 'application/json' });
  res.end('{"success":true,"message":"ok"}');
}).listen(0, '127.0.0.1');
await once(bare, 'listening');

const redis = await startRedisServer();
const gateway = await startGateway(loadConfig({ PORT: '0', HOST: '127.0.0.1', REDIS_URL: redis.url, QUEUE_NAME: 'bench', LOG_LEVEL: 'silent' }));

console.log(`autocannon, ${connections} connections, ${seconds} s each, client and server on this machine`);
const baseline = await run('bare node:http, fixed JSON', `http://127.0.0.1:${(bare.address() as AddressInfo).port}`, [{ method: 'GET' }]);
let n = 0;
const submit = await run('gateway POST /api/contact', `${gateway.url}/api/contact`, [
  {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    // A new email per request, so every request claims a contact id and enqueues a job.
    setupRequest: (req) => ({ ...req, body: JSON.stringify({ email: `bench-${n++}@acme.io`, name: 'Bench', message: 'Launch day' }) }),
  },
]);

const client = new Redis(redis.url, { maxRetriesPerRequest: null });
const queue = new Queue('bench', { connection: client });
const queued = await queue.getWaitingCount();
console.log(`gateway / baseline: ${(submit.requests.average / baseline.requests.average).toFixed(2)}; jobs in Redis: ${queued}; 2xx answers: ${submit['2xx']}`);
// Requests still in flight when autocannon stops are enqueued but not counted as answered, so the queue
// may hold up to `connections` more jobs than 2xx answers; fewer would mean an acknowledged job was lost.
const lost = Math.max(0, submit['2xx'] - queued);
console.log(`acknowledged but not queued: ${lost}${lost === 0 ? ' (none lost)' : ' (LOST)'}`);
if (lost > 0) process.exitCode = 1;

await queue.close();
client.disconnect();
await gateway.stop();
await redis.stop();
bare.close();
