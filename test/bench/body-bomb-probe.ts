import { sleep } from '../support/wait.ts';
/**
 * `pnpm bench:body-bomb`: how long the gateway takes to refuse 6 MB shape bombs sent to careers-apply, and
 * how /healthz answers meanwhile (issue 19: a `[[[…]]]` was parsed whole before its depth was checked,
 * 0.9–1.8 s per bomb, and four such clients moved /healthz p50 from 3 ms to 975 ms).
 *
 * The gateway runs as its own process (its event loop is what the bombs stall) on a Redis of this probe's
 * own. First /healthz alone, then four clients each sending the same bomb again and again (for PROBE_SECONDS,
 * default 5, at most BOMBS_PER_CLIENT times) while /healthz is asked every 10 ms, for a nesting bomb and then a width bomb (`[{},{},…]`). Prints
 * the refusal time of each bomb (from the first byte sent to the answer read, or to the connection closed
 * under a bomb still being written: status 0) and /healthz latencies.
 * PROBE_AGAINST=<another checkout, installed> probes that checkout's gateway after ours, for before/after.
 * Traffic goes only to 127.0.0.1; every loop is bounded in count and every request in time.
 */

import { type ChildProcess, spawn } from 'node:child_process';
import { once } from 'node:events';
import { request } from 'node:http';
import { fileURLToPath } from 'node:url';
import { freePort, startRedisServer } from '@forms/local-services';

const REPO_ROOT = fileURLToPath(new URL('../../', import.meta.url));
const CLIENTS = 4;
const BOMBS_PER_CLIENT = Number(process.env.BOMBS_PER_CLIENT ?? 100);
/** Each client stops sending after this long (and after at least one bomb), whichever comes first. */
const PROBE_SECONDS = Number(process.env.PROBE_SECONDS ?? 5);
const SIZE = 6 * 1024 * 1024;
// Encoded once: writing a Buffer costs this process nothing, so its own event loop (which also times
// /healthz) is not what the figures measure.
const BOMBS = {
  'nesting bomb `[[[…]]]`': Buffer.from(`${'['.repeat(SIZE / 2)}${']'.repeat(SIZE / 2)}`),
  'width bomb `[{},{},…]`': Buffer.from(`[${'{},'.repeat(SIZE / 3 - 1)}{}]`),
};

type Answer = { status: number; ms: number };

/** One request on a connection of its own; resolves with the status and the time to the answer's end. */
function send(port: number, path: string, body?: Buffer): Promise<Answer> {
  return new Promise((resolve, reject) => {
    const started = performance.now();
    const headers = body === undefined ? {} : { 'content-type': 'application/json' };
    const req = request(
      { host: '127.0.0.1', port, path, method: body ? 'POST' : 'GET', headers, agent: false },
      (res) => {
        res.resume();
        res.on('end', () => resolve({ status: res.statusCode ?? 0, ms: performance.now() - started }));
      },
    );
    req.setTimeout(30_000, () => req.destroy(new Error(`${path}: no answer within 30 s`)));
    req.on('error', (err: NodeJS.ErrnoException) => {
      // A refusal that closes the connection while the bomb is still being written can reach this client as
      // a broken pipe before the answer is read: the gateway refused it then (status 0: closed).
      if (body !== undefined && (err.code === 'EPIPE' || err.code === 'ECONNRESET'))
        resolve({ status: 0, ms: performance.now() - started });
      else reject(err);
    });
    req.end(body);
  });
}

function quantile(values: number[], q: number): number {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.min(sorted.length - 1, Math.floor(q * sorted.length))] ?? Number.NaN;
}
const ms = (n: number) => `${n.toFixed(0).padStart(5)} ms`;
const summary = (values: number[]) =>
  `p50 ${ms(quantile(values, 0.5))}  p99 ${ms(quantile(values, 0.99))}  max ${ms(Math.max(...values))}  (n ${values.length})`;

/** Asks /healthz every 10 ms until `until` settles; returns the latencies. */
async function probeHealth(port: number, until: Promise<unknown>): Promise<number[]> {
  const latencies: number[] = [];
  let done = false;
  const stop = () => {
    done = true;
  };
  until.then(stop, stop);
  for (let i = 0; i < 100_000 && !done; i++) {
    latencies.push((await send(port, '/healthz')).ms);
    await sleep(10);
  }
  return latencies;
}

async function startGateway(cwd: string, redisUrl: string): Promise<{ port: number; child: ChildProcess }> {
  const port = await freePort();
  const child = spawn(process.execPath, ['--import', 'tsx', 'apps/gateway/src/main.ts'], {
    cwd,
    env: { ...process.env, PORT: String(port), HOST: '127.0.0.1', REDIS_URL: redisUrl, LOG_LEVEL: 'warn' },
    stdio: ['ignore', 'ignore', 'inherit'],
  });
  const deadline = Date.now() + 30_000;
  while (
    !(await send(port, '/healthz').then(
      (a) => a.status === 200,
      () => false,
    ))
  ) {
    if (child.exitCode !== null || Date.now() > deadline) {
      child.kill('SIGKILL');
      throw new Error(`the gateway in ${cwd} did not start`);
    }
    await sleep(100);
  }
  return { port, child };
}

async function probe(title: string, cwd: string, redisUrl: string) {
  const { port, child } = await startGateway(cwd, redisUrl);
  try {
    console.log(`${title} (${cwd})`);
    const idle = await probeHealth(port, sleep(1_000));
    console.log(`  /healthz alone                        ${summary(idle)}`);
    for (const [name, bomb] of Object.entries(BOMBS)) {
      const refusals: Answer[] = [];
      const clients = Promise.all(
        Array.from({ length: CLIENTS }, async () => {
          const started = Date.now();
          for (let i = 0; i < BOMBS_PER_CLIENT && (i === 0 || Date.now() - started < PROBE_SECONDS * 1000); i++)
            refusals.push(await send(port, '/api/careers-apply', bomb));
        }),
      );
      const health = await probeHealth(port, clients);
      await clients;
      const statuses = [...new Set(refusals.map((r) => r.status))].join(',');
      console.log(`  ${name}, ${CLIENTS} clients: refused ${summary(refusals.map((r) => r.ms))}  status ${statuses}`);
      console.log(`  /healthz meanwhile                    ${summary(health)}`);
    }
  } finally {
    child.kill('SIGTERM');
    await once(child, 'exit');
  }
}

const redis = await startRedisServer();
try {
  console.log(
    `${CLIENTS} clients sending 6 MiB bombs to /api/careers-apply for ${PROBE_SECONDS} s; /healthz every 10 ms`,
  );
  await probe('this checkout', REPO_ROOT, redis.url);
  if (process.env.PROBE_AGAINST) await probe('against', process.env.PROBE_AGAINST, redis.url);
} finally {
  await redis.stop();
}
