/**
 * `pnpm bench:instructions`: CPU instructions per acknowledged request, counted by valgrind's callgrind,
 * for the Koa floor (koa-floor-server.ts) and our gateway, POST /api/contact. On 2 shared cores a time
 * measure of the same server moves by a tenth from one minute to the next; an instruction count moves by
 * well under 1 % between runs, whatever else the machine does, so a change of a few percent can be seen.
 *
 * Each server runs under callgrind with counting off while BENCH_WARM requests (default 40,000) bring its
 * code to the tiers it runs at under load; then BENCH_COUNTED requests (default 4,000) are counted, 20 at
 * a time. The figure is the main thread's instructions per 2xx (JavaScript, the event loop, the
 * collections made on it); V8's compiler and collector threads are printed beside it. What it leaves out:
 * the kernel's side of each system call, which a time measure counts, so the ratio here is wider than
 * `pnpm bench:gateway`'s CPU ratio. Work done once per second of wall time (a cached `Date` header) is
 * spread over ~50 times fewer requests under valgrind, a few hundred instructions per request.
 *
 * Rows: the floor, ours, and with BENCH_TRACING=1 (default) ours with tracing on and sampling nothing
 * (OTEL_TRACES_SAMPLER=parentbased_traceidratio, ratio 0: every request pays for the span it does not
 * record, nothing is exported). BENCH_AGAINST=<another checkout, installed> adds its gateway. Two servers
 * are counted at a time, one per core. BENCH_KEEP=1 keeps the callgrind files (with V8's perf map, for
 * callgrind_annotate) and prints where. Needs valgrind (Debian's `valgrind` package).
 */
import { type ChildProcess, execFileSync, spawn, spawnSync } from 'node:child_process';
import { mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
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

function gateway(title: string, cwd: string, env: Record<string, string> = {}): Target {
  execFileSync('pnpm', ['exec', 'tsup', '--silent'], { cwd: join(cwd, 'apps/gateway'), stdio: 'ignore' });
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
      ...(keep ? ['--perf-basic-prof', '--interpreted-frames-native-stack'] : []),
      ...(floor ? ['--import', 'tsx', ...args, redis.url, String(port), 'floor', 'bare'] : args),
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
  targets.push(
    gateway('ours, tracing on, sampling nothing', REPO_ROOT, {
      // Nothing is sampled, so nothing is ever sent here.
      OTEL_EXPORTER_OTLP_ENDPOINT: 'http://127.0.0.1:9',
      OTEL_TRACES_SAMPLER: 'parentbased_traceidratio',
      OTEL_TRACES_SAMPLER_ARG: '0',
    }),
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
