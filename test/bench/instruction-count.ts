/**
 * `pnpm bench:instructions`: CPU instructions per acknowledged request, counted by valgrind's callgrind,
 * for the Koa floor (koa-floor-server.ts) and our gateway, POST /api/contact. On 2 shared cores a time
 * measure of the same server moves by a tenth from one minute to the next; an instruction count moves by
 * under 1 % (the floor) to 2 % (ours) between runs, whatever else the machine does, so a change of a few
 * percent can be seen.
 *
 * Each server runs under callgrind with counting off while BENCH_WARM requests (default 40,000) bring its
 * code to the tiers it runs at under load (TurboFan compiling on the main thread, so that compiling is over
 * when they are; no memory reducer, whose full collections valgrind's slowness would set off); then
 * BENCH_COUNTED requests (default 4,000) are counted, 20 at a time. The figure is the main thread's
 * instructions per 2xx (JavaScript, the event loop, the collections made on it); V8's compiler and collector
 * threads are printed beside it. What it leaves out: the kernel's side of each system call, which a time
 * measure counts, so the ratio here is wider than `pnpm bench:gateway`'s CPU ratio. Work done once
 * per second of wall time (a cached `Date` header) is spread over ~50 times fewer requests under valgrind,
 * a few hundred instructions per request.
 *
 * Rows: the floor, ours, and unless BENCH_TRACING=0 ours with tracing on, sampling nothing, 10 % and 100 %
 * (OTEL_TRACES_SAMPLER=parentbased_traceidratio with ratio 0 and 0.1, parentbased_always_on), exporting
 * OTLP/HTTP with the apps' default encoding, JSON (BENCH_OTLP_PROTOCOL=http/protobuf for protobuf), to a
 * collector here that reads each export whole and drops it: what a request pays for tracing, the spans it
 * records and their export. BENCH_AGAINST=<another checkout, installed> adds its gateway. Two servers are
 * counted at a time, one per core. BENCH_KEEP=1 keeps the callgrind files (with V8's perf map, for
 * callgrind_annotate) and prints where. Needs valgrind (Debian's `valgrind` package).
 */
import { type ChildProcess, execFileSync, spawn, spawnSync } from 'node:child_process';
import { mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir, userInfo } from 'node:os';
import { join } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { freePort, startRedisServer } from '@forms/local-services';
import autocannon from 'autocannon';
import { benchRequest } from './bench-requests.ts';

const REPO_ROOT = join(import.meta.dirname, '../..');
const warm = Number(process.env.BENCH_WARM ?? 40_000);
const counted = Number(process.env.BENCH_COUNTED ?? 4_000);
const keep = process.env.BENCH_KEEP === '1';

try {
  execFileSync('valgrind', ['--version'], { stdio: 'ignore' });
} catch {
  console.error('bench:instructions needs valgrind (apt-get install valgrind)');
  process.exit(1);
}

const redis = await startRedisServer();
const children = new Set<ChildProcess>();
process.on('exit', () => {
  for (const child of children) child.kill('SIGKILL');
  redis.process.kill('SIGKILL');
});

type Target = { title: string; args: string[]; cwd: string; env: Record<string, string>; floor?: boolean };

/** Each checkout's gateway is built once, whatever number of rows run it. */
const built = new Set<string>();
function gateway(title: string, cwd: string, env: Record<string, string> = {}): Target {
  if (!built.has(cwd)) {
    execFileSync('pnpm', ['exec', 'tsup', '--silent'], { cwd: join(cwd, 'apps/gateway'), stdio: 'ignore' });
    built.add(cwd);
  }
  return { title, args: ['apps/gateway/dist/main.js'], cwd, env };
}

/** One server under callgrind: warmed uncounted, then `counted` requests counted. */
async function count({ title, args, cwd, env, floor }: Target) {
  const port = await freePort();
  const out = mkdtempSync(join(tmpdir(), 'forms-instructions-'));
  // valgrind names its control pipes after USER and HOST, and HOST is also the gateway's listen address
  // (loopback): the control command below is given the same two.
  const vgdb = `--vgdb-prefix=${join(out, 'vgdb')}`;
  const names = { USER: userInfo().username, HOST: '127.0.0.1' };
  const child = spawn(
    'valgrind',
    [
      ...['--tool=callgrind', '--smc-check=all-non-file', '--instr-atstart=no', '--separate-threads=yes', vgdb],
      `--callgrind-out-file=${join(out, 'callgrind.%p')}`,
      process.execPath,
      // V8 optimises (TurboFan) on the main thread, so that compiling is over with the warm-up.
      '--no-concurrent-recompilation',
      // V8's memory reducer starts a full GC when the allocation rate per second of wall time drops, which
      // is how a process looks under valgrind (~50 times slower): rows that allocate more (tracing on)
      // counted full GCs a process at full speed does not run (concurrent marking on the helper threads,
      // 250-500 k per request, and more on the main thread), a different number in each window. A row whose
      // other threads count more than a few k per request is still compiling or collecting: not a measure.
      '--no-memory-reducer',
      ...(keep ? ['--perf-basic-prof', '--interpreted-frames-native-stack'] : []),
      ...(floor ? [...args, redis.url, String(port), 'floor', 'bare'] : args),
    ],
    {
      cwd,
      env: {
        ...process.env,
        PORT: String(port),
        REDIS_URL: redis.url,
        QUEUE_NAME: 'bench',
        LOG_LEVEL: 'warn',
        TRUST_PROXY: 'true',
        GATEWAY_PROCESSES: '1',
        // Under valgrind a request takes ~50 times as long: Redis's answer is not late, the count is.
        ENQUEUE_TIMEOUT_MS: '60000',
        OTEL_EXPORTER_OTLP_ENDPOINT: '',
        OTEL_EXPORTER_OTLP_TRACES_ENDPOINT: '',
        ...env,
        ...names,
      },
      stdio: ['ignore', 'ignore', 'ignore'],
    },
  );
  children.add(child);
  const url = `http://127.0.0.1:${port}`;
  const path = floor ? '/' : '/api/contact';
  const deadline = Date.now() + 180_000;
  while (
    !(await fetch(`${url}${floor ? '/' : '/healthz'}`, floor ? { method: 'POST', body: '{}' } : {}).catch(
      () => undefined,
    ))
  ) {
    if (child.exitCode !== null || Date.now() > deadline) throw new Error(`${title} did not start under valgrind`);
    await sleep(500);
  }
  const requests = [{ ...benchRequest('contact'), path }];
  const fire = (amount: number) => autocannon({ url, connections: 20, requests, amount, timeout: 60 });
  await fire(warm);
  const control = (on: 'on' | 'off') => {
    const { stdout, stderr } = spawnSync('callgrind_control', [vgdb, '-i', on, String(child.pid)], {
      env: { ...process.env, ...names },
      encoding: 'utf8',
    });
    const said = stdout + stderr;
    if (!said.includes(`instrumentation ${on}`)) throw new Error(`callgrind_control did not reach ${title}: ${said}`);
  };
  control('on');
  const result = await fire(counted);
  control('off');
  const exited = new Promise((resolve) => child.once('exit', resolve));
  child.kill('SIGTERM');
  await Promise.race([exited, sleep(120_000)]);
  children.delete(child);
  let main = 0;
  let all = 0;
  for (const file of readdirSync(out).filter((name) => name.startsWith('callgrind.'))) {
    const total = Number(/^totals: (\d+)/m.exec(readFileSync(join(out, file), 'utf8'))?.[1] ?? 0);
    all += total;
    if (file.endsWith('-01')) main += total;
  }
  if (keep) console.log(`  ${title}: callgrind files in ${out} (perf map /tmp/perf-${child.pid}.map)`);
  else rmSync(out, { recursive: true, force: true });
  const ok = Math.max(1, result['2xx']);
  return { title, main: main / ok, others: (all - main) / ok, non2xx: result.non2xx };
}

const targets: Target[] = [
  { title: 'Koa floor', args: ['test/bench/koa-floor-server.ts'], cwd: REPO_ROOT, env: {}, floor: true },
  gateway('ours', REPO_ROOT),
];
if (process.env.BENCH_AGAINST) targets.push(gateway('BENCH_AGAINST', process.env.BENCH_AGAINST));
if (process.env.BENCH_TRACING !== '0') {
  const collector = createServer((req, res) => {
    req.resume();
    req.on('end', () =>
      res.writeHead(200, { 'content-type': req.headers['content-type'] ?? 'application/json' }).end(),
    );
  });
  await new Promise<void>((listening) => collector.listen(0, '127.0.0.1', listening));
  collector.unref();
  const traced = {
    OTEL_EXPORTER_OTLP_ENDPOINT: `http://127.0.0.1:${(collector.address() as AddressInfo).port}`,
    ...(process.env.BENCH_OTLP_PROTOCOL ? { OTEL_EXPORTER_OTLP_PROTOCOL: process.env.BENCH_OTLP_PROTOCOL } : {}),
    // Under valgrind the exporter falls behind, and past its queue (2,048 spans) the SDK drops spans instead
    // of encoding them: how many were dropped then depended on timing, and the sampled rows moved by a third
    // from run to run. With room for every span, each one is encoded and sent.
    OTEL_BSP_MAX_QUEUE_SIZE: '1000000',
  };
  const ratio = (arg: string) => ({ OTEL_TRACES_SAMPLER: 'parentbased_traceidratio', OTEL_TRACES_SAMPLER_ARG: arg });
  targets.push(
    gateway('ours, tracing on, sampling nothing', REPO_ROOT, { ...traced, ...ratio('0') }),
    gateway('ours, tracing on, sampling 10 %', REPO_ROOT, { ...traced, ...ratio('0.1') }),
    gateway('ours, tracing on, sampling 100 %', REPO_ROOT, { ...traced, OTEL_TRACES_SAMPLER: 'parentbased_always_on' }),
  );
}

console.log(
  `instructions per 2xx, POST /api/contact, under callgrind: ${warm} requests to warm up, ${counted} counted, 20 connections`,
);
const rows: Awaited<ReturnType<typeof count>>[] = [];
for (let i = 0; i < targets.length; i += 2) rows.push(...(await Promise.all(targets.slice(i, i + 2).map(count))));
const floorRow = rows[0]!;
const oursRow = rows[1]!;
for (const row of rows) {
  const ratios = [`${(row.main / floorRow.main).toFixed(2)}× the floor`];
  if (row !== oursRow && row !== floorRow) ratios.push(`${(row.main / oursRow.main).toFixed(3)}× ours`);
  console.log(
    `${row.title.padEnd(36)} main thread ${(row.main / 1000).toFixed(1).padStart(6)} k (${ratios.join(', ')}); compiler and collector threads ${(row.others / 1000).toFixed(1)} k${row.non2xx ? `; ${row.non2xx} non-2xx` : ''}`,
  );
}
process.exit(0);
