/**
 * `pnpm bench:durable-ack`: what REDIS_ACK_REPLICAS=1 costs the gateway. One master and one replica
 * (`redis-server --replicaof`) on 127.0.0.1; the gateway POSTs /api/contact (validate, claim the contact
 * id, enqueue) with durable acks off, then on (WAIT 1 after the enqueue), each on a queue of its own, and
 * prints req/s and latency of each and their ratio. Rounds alternate off/on (BENCH_ROUNDS, default 2) so
 * a busy machine weighs on both alike. Traffic goes only to 127.0.0.1; each run lasts BENCH_SECONDS
 * (default 10).
 */
import { loadConfig, startGateway } from '@forms/gateway';
import { startRedisServer } from '@forms/local-services';
import autocannon from 'autocannon';
import { Redis } from 'ioredis';
import { sleep } from '../support/wait.ts';

const seconds = Number(process.env.BENCH_SECONDS ?? 10);
const rounds = Number(process.env.BENCH_ROUNDS ?? 2);
const connections = 50;

const master = await startRedisServer();
const replica = await startRedisServer({ args: ['--replicaof', '127.0.0.1', String(master.port)] });
const probe = new Redis(replica.url);
for (let i = 0; i < 100 && !(await probe.info('replication')).includes('master_link_status:up'); i++) {
  await sleep(100);
}
probe.disconnect();

let n = 0;
async function run(ackReplicas: number, round: number, duration = seconds) {
  const gateway = await startGateway(
    loadConfig({
      PORT: '0',
      HOST: '127.0.0.1',
      REDIS_URL: master.url,
      QUEUE_NAME: `bench-ack${ackReplicas}-${round}`,
      REDIS_ACK_REPLICAS: String(ackReplicas),
      RATE_LIMIT_REQUESTS: '0', // one client address sends it all
      LOG_LEVEL: 'silent',
    }),
  );
  const result = await autocannon({
    url: `${gateway.url}/api/contact`,
    connections,
    duration,
    requests: [
      {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        setupRequest: (req) => ({
          ...req,
          body: JSON.stringify({ email: `bench-${n++}@acme.io`, name: 'Bench', message: 'Launch day' }),
        }),
      },
    ],
  });
  await gateway.stop();
  if (round === 0) return 0;
  const { requests: r, latency: l, non2xx, errors } = result;
  console.log(
    `REDIS_ACK_REPLICAS=${ackReplicas} round ${round}: ${r.average.toFixed(0).padStart(6)} req/s   p50 ${l.p50} ms   p99 ${l.p99} ms   max ${l.max} ms   non-2xx ${non2xx}   errors ${errors}`,
  );
  return r.average;
}

console.log(`autocannon, ${connections} connections, ${seconds} s per run; 1 master + 1 replica on this machine`);
// Warm-up, not counted: the first requests load the work-email lists and JIT the request path (a cold
// first run measured 9 req/s against 361 warm).
await run(0, 0, 3);
const off: number[] = [];
const on: number[] = [];
for (let round = 1; round <= rounds; round++) {
  off.push(await run(0, round));
  on.push(await run(1, round));
}
const mean = (xs: number[]) => xs.reduce((a, b) => a + b, 0) / xs.length;
console.log(
  `durable acks on / off: ${(mean(on) / mean(off)).toFixed(2)} (${mean(on).toFixed(0)} vs ${mean(off).toFixed(0)} req/s)`,
);

await replica.stop();
await master.stop();
