/**
 * `pnpm bench:spam-review`: the admin wing's spam review page (/admin/spam) with 10,000 held submissions,
 * and what browsing it costs the gateway's acknowledgements.
 *
 * One Redis of the bench's own, 10,000 held submissions written by the hold itself (@forms/quarantine's
 * createQuarantine, the gateway's and worker's script, 200 at a time on one connection: seconds, no HTTP),
 * one gateway from source (`apps/gateway/src/main.ts`, as `pnpm start` runs it), no worker. Then:
 * 1. the first page, fetched BENCH_PAGE_FETCHES times one after another (default 50): median, p95, max;
 *    the same for a deep page (offset 9,950), and a page narrowed by layer (which reads up to HELD_SCAN_MAX);
 * 2. side by side, BENCH_ROUNDS times (default 2), alternating: autocannon on POST /api/contact (50
 *    connections, BENCH_SECONDS each, default 10) alone, then the same while a loop fetches the review page
 *    (first, deep and narrowed pages in turn, one at a time, as fast as they answer): 2xx/s, p50/p99 of the
 *    acks, and the ratios with the page ÷ without; then the same pair at a fixed BENCH_RATE req/s (default
 *    200, well under what the machine takes), where the ack latency says whether the page holds acks up. autocannon, the page loop, the gateway and Redis share the
 *    machine's cores, as in every bench here: read the ratios, not the absolute figures.
 * Traffic goes only to 127.0.0.1; everything started is stopped at the end.
 */
import { type ChildProcess, spawn } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { freePort, startRedisServer } from '@forms/local-services';
import { createQuarantine } from '@forms/quarantine';
import type { JobPayload } from '@forms/schemas';
import autocannon from 'autocannon';
import { Redis } from 'ioredis';
import { sleep } from '../support/wait.ts';
import { benchRequest } from './bench-requests.ts';

const HELD = 10_000;
const seconds = Number(process.env.BENCH_SECONDS ?? 10);
const rounds = Number(process.env.BENCH_ROUNDS ?? 2);
const pageFetches = Number(process.env.BENCH_PAGE_FETCHES ?? 50);
const fixedRate = Number(process.env.BENCH_RATE ?? 200);
const TOKEN = 'bench-admin-token-0123456789abcdef';
const QUEUE = 'forms-spam-review-bench';
const REPO_ROOT = fileURLToPath(new URL('../../', import.meta.url));
const auth = { authorization: `Basic ${Buffer.from(`bench:${TOKEN}`).toString('base64')}` };
const PAGES = ['/admin/spam', '/admin/spam?offset=9950', '/admin/spam?layer=rules'];

const redisServer = await startRedisServer();
const redis = new Redis(redisServer.url);
let gateway: ChildProcess | undefined;
try {
  const started = Date.now();
  const hold = createQuarantine(redis, { prefix: 'bull' }, QUEUE, {
    maxAgeMs: 7 * 86_400_000,
    maxCount: 20_000,
    timeoutMs: 10_000,
  });
  for (let i = 0; i < HELD; i += 200) await Promise.all(Array.from({ length: 200 }, (_, j) => hold(...heldOne(i + j))));
  console.log(`held ${await redis.zcard(`bull:${QUEUE}:spam`)} submissions in ${Date.now() - started} ms`);

  const port = await freePort();
  const url = `http://127.0.0.1:${port}`;
  gateway = spawn(process.execPath, ['apps/gateway/src/main.ts'], {
    cwd: REPO_ROOT,
    env: {
      ...process.env,
      PORT: String(port),
      HOST: '127.0.0.1',
      REDIS_URL: redisServer.url,
      QUEUE_NAME: QUEUE,
      ADMIN_TOKEN: TOKEN,
      TRUST_PROXY: 'true',
      QUARANTINE_MAX: '20000',
      LOG_LEVEL: 'silent',
      PUBLIC_BASE_URL: url,
      CONTACT_EMAIL: 'bench@agency.test',
    },
    stdio: ['ignore', 'inherit', 'inherit'],
  });
  for (
    let i = 0;
    i < 300 &&
    !(await fetch(`${url}/healthz`)
      .then((r) => r.ok)
      .catch(() => false));
    i++
  )
    await sleep(100);

  for (const path of PAGES) {
    const times: number[] = [];
    for (let i = 0; i < pageFetches; i++) {
      const t = performance.now();
      const res = await fetch(`${url}${path}`, { headers: auth });
      const html = await res.text();
      if (res.status !== 200 || !html.includes('Spam quarantine')) throw new Error(`${path} answered ${res.status}`);
      times.push(performance.now() - t);
    }
    console.log(`${path.padEnd(28)} ${summary(times)}`);
  }

  const rows: { round: number; mode: string; alone: Result; browsed: Result; pages: number; pageMs: number[] }[] = [];
  for (let round = 1; round <= rounds; round++) {
    for (const rate of [undefined, fixedRate]) {
      const alone = await acks(url, rate);
      let browsing = true;
      const pageMs: number[] = [];
      const loop = (async () => {
        for (let i = 0; browsing; i++) {
          const t = performance.now();
          const res = await fetch(`${url}${PAGES[i % PAGES.length]}`, { headers: auth });
          await res.text();
          if (res.status !== 200) throw new Error(`the page answered ${res.status} under load`);
          pageMs.push(performance.now() - t);
        }
      })();
      const browsed = await acks(url, rate);
      browsing = false;
      await loop;
      rows.push({ round, mode: rate ? `${rate} req/s` : 'saturated', alone, browsed, pages: pageMs.length, pageMs });
    }
  }
  console.log('\nacks of POST /api/contact, 50 connections, alone and while the review page is fetched in a loop');
  for (const r of rows) {
    console.log(
      `round ${r.round} ${r.mode}: alone ${fmt(r.alone)} | browsed ${fmt(r.browsed)} | ratio 2xx/s ${(r.browsed.rate / r.alone.rate).toFixed(3)}, p50 ${(r.browsed.p50 / r.alone.p50).toFixed(2)}, p99 ${(r.browsed.p99 / r.alone.p99).toFixed(2)} | pages fetched ${r.pages} (${summary(r.pageMs)})`,
    );
  }
} finally {
  gateway?.kill('SIGTERM');
  if (gateway && gateway.exitCode === null) await new Promise((resolve) => gateway!.once('exit', resolve));
  redis.disconnect();
  await redisServer.stop();
}

type Result = { rate: number; p50: number; p99: number; non2xx: number };

async function acks(url: string, rate: number | undefined): Promise<Result> {
  const result = await autocannon({
    url,
    connections: 50,
    duration: seconds,
    ...(rate ? { overallRate: rate } : {}),
    requests: [benchRequest('contact', `review-${Date.now()}`)],
  });
  return {
    rate: result['2xx'] / seconds,
    p50: result.latency.p50,
    p99: result.latency.p99,
    non2xx: result.non2xx,
  };
}

function fmt(r: Result): string {
  return `${Math.round(r.rate)} 2xx/s p50 ${r.p50} ms p99 ${r.p99} ms${r.non2xx ? ` non-2xx ${r.non2xx}` : ''}`;
}

function summary(ms: number[]): string {
  const sorted = [...ms].sort((a, b) => a - b);
  const at = (q: number) => sorted[Math.min(sorted.length - 1, Math.floor(q * sorted.length))]!.toFixed(1);
  return `n ${sorted.length}, median ${at(0.5)} ms, p95 ${at(0.95)} ms, max ${sorted.at(-1)!.toFixed(1)} ms`;
}

/** One held submission: a contact the honeypot held, with the reasons the layers give. */
function heldOne(i: number): [JobPayload, Parameters<ReturnType<typeof createQuarantine>>[1]] {
  const submissionId = `sub_bench${String(i).padStart(21, '0')}`;
  const payload = {
    v: 1,
    kind: 'contact',
    submissionId,
    recordId: `con_bench${String(i).padStart(21, '0')}`,
    acceptedAt: new Date().toISOString(),
    data: {
      email: `held-${i}@bench.example`,
      name: `Held ${i}`,
      message: `Cheap followers, visit https://spam.example/${i}`,
    },
  } as unknown as JobPayload;
  const judgement = {
    reasons: [
      i % 2
        ? { layer: 'rules' as const, code: 'link-bot', weight: 1 }
        : { layer: 'honeypot' as const, code: 'filled', weight: 1 },
    ],
    score: (i % 100) / 100,
  };
  return [payload, judgement];
}
