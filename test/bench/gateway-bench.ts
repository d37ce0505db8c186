import { sleep } from '../support/wait.ts';
/**
 * `pnpm bench:gateway`: how fast the gateway acknowledges submissions, against the right ceiling.
 *
 * Servers, each in its own process(es), on one Redis of the bench's own (FLUSHALL between runs), no worker:
 * 1. baseline: bare node:http + JSON.parse + one `await queue.add(name, body)` per request
 *    (`bullmq-baseline-server.ts`), what this machine can do with BullMQ at all;
 * 2. the Koa floor: Koa, the raw body, JSON.parse, one add (`koa-floor-server.ts`), on the contact body and
 *    on the mix's bodies: what any gateway that keeps Koa is measured against;
 * 3. ours, POST /api/contact: validation, work email, rate limit, honeypot check, contact index, enqueue;
 * 4. ours (the same gateway process), a realistic mix of the eleven endpoints (weights in MIX).
 * Each at saturation (50 connections) and at a fixed 5,000 req/s (autocannon `overallRate`). Prints req/s,
 * 2xx/s, p50/p99/max latency, non-2xx, CPU per 2xx, and the medians of ours ÷ the Koa floor (2xx/s and
 * server CPU per 2xx) and ours ÷ baseline. autocannon runs in this process and shares the two cores with
 * the server under test and Redis, for every server alike.
 *
 * The gateways run as they ship (tsup's build, `node apps/gateway/dist/main.js`), each checkout built first;
 * BENCH_SOURCE=1 runs them from source instead, as `pnpm start` does (another checkout's through tsx).
 * BENCH_GATEWAY_PROCESSES=<n> runs ours as n processes (GATEWAY_PROCESSES), beside a baseline of n processes
 * and ours as one.
 * BENCH_AGAINST=<dir> runs another checkout's gateway beside ours in every round (/api/contact and the mix,
 * and at the fixed rate), and prints it ÷ the floor and ours ÷ it: before/after in one run.
 * BENCH_AGAINST_NODE=<node binary> runs that checkout's gateway on another Node (ours stays on the project's).
 * BENCH_IDEMPOTENCY=1 sends a fresh Idempotency-Key with every request to a gateway, as @forms/client does.
 * Side by side: every round also loads the floor and ours (and BENCH_AGAINST's gateway) at once, each at
 * BENCH_TOGETHER_RATE req/s (default 1,000; 0 leaves it out), on /api/contact and on the mix, and prints ours
 * ÷ the floor by server CPU per 2xx from that window: on shared cores the steadiest of the CPU ratios.
 * BENCH_FLOOR=1 adds, to every round, the floor with a claim script before the add (the claim of today's
 * gateway, in small): once a call per request, once batched per turn as the gateway sends it (`scriptBatch`,
 * the adds held to the end of the turn), and once with ioredis auto-pipelining.
 * Tracing: "ours" runs with tracing off (no OTLP endpoint, as by default); every round adds the same
 * gateway with tracing on, sampling 100 % and 10 % (OTEL_TRACES_SAMPLER), exporting OTLP/HTTP with the apps'
 * default encoding, JSON (or BENCH_OTLP_PROTOCOL, e.g. http/protobuf, or `http/json,http/protobuf` for rows of
 * each) to a collector stand-in in this process that reads and drops each export. Each is printed as a ratio
 * of ours with tracing off, by 2xx/s and by CPU per 2xx, and, loaded side by side with ours at
 * BENCH_TOGETHER_RATE, by server CPU per 2xx. BENCH_TRACING=0 leaves them out. Off against the
 * code before tracing existed: BENCH_AGAINST=<a checkout without it>.
 *
 * Traffic goes only to 127.0.0.1; every run is bounded (BENCH_SECONDS, default 10, plus 2 s of warm-up;
 * BENCH_ROUNDS, default 1, repeats the saturation runs).
 * Each request comes from one of 1,000 client addresses (X-Forwarded-For, TRUST_PROXY=true), so the
 * per-client rate limit does real work at its default setting; bodies carry the empty honeypot field a
 * site adds.
 */

import { type ChildProcess, execFileSync, spawn } from 'node:child_process';
import { once } from 'node:events';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { fileURLToPath } from 'node:url';
import { freePort, startRedisServer } from '@forms/local-services';
import autocannon from 'autocannon';
import { Redis } from 'ioredis';
import { childPids, procIo, procStat } from '../support/proc.ts';
import { benchRequest, mixedRequests } from './bench-requests.ts';

const seconds = Number(process.env.BENCH_SECONDS ?? 10);
const connections = 50;
const FIXED_RATE = 5_000;
const REPO_ROOT = fileURLToPath(new URL('../../', import.meta.url));

const contactOnly = [benchRequest('contact')];
const mixed = mixedRequests();

/** `serverUs` and `cpuUs`: server, and server + Redis, CPU µs per 2xx. */
type Row = { title: string; okPerSecond: number; serverUs: number; cpuUs: number; result: autocannon.Result };

/**
 * What a server has used so far, with its child processes (the gateway's processes under GATEWAY_PROCESSES,
 * tsx's esbuild), from /proc in one pass: CPU time (user + system, µs; 10 ms resolution, fine over a run),
 * and its read-like and write-like system calls (its sockets, HTTP and Redis alike).
 */
function usage(pid: number): { cpuUs: number; reads: number; writes: number } {
  const total = { cpuUs: 0, reads: 0, writes: 0 };
  for (const each of [pid, ...childPids(pid)]) {
    const fields = procStat(each);
    if (fields) total.cpuUs += (Number(fields[11]) + Number(fields[12])) * 10_000;
    const io = procIo(each);
    total.reads += io.reads;
    total.writes += io.writes;
  }
  return total;
}

/**
 * One measured run against `server`. Besides throughput it reports CPU µs per acknowledged request spent
 * by the server process and by Redis: on a machine shared with other work, throughput moves with the
 * neighbours' load, while CPU per request is what the code costs, and a ratio of those is the fairer
 * comparison of two servers.
 */
async function run(
  title: string,
  server: ChildProcess,
  url: string,
  requests: autocannon.Request[],
  rate?: number,
): Promise<Row> {
  const options = { url, connections, requests, ...(rate ? { overallRate: rate } : {}) };
  await autocannon({ ...options, duration: 2 }); // warm-up: JIT, connection pools
  const before = usage(server.pid!);
  const redisBefore = usage(redisServer.process.pid!).cpuUs;
  const result = await autocannon({ ...options, title, duration: seconds });
  const ok = Math.max(1, result['2xx']);
  const after = usage(server.pid!);
  const serverUs = (after.cpuUs - before.cpuUs) / ok;
  const redisUs = (usage(redisServer.process.pid!).cpuUs - redisBefore) / ok;
  // What a server asks of the kernel per 2xx: its socket reads and writes.
  const reads = (after.reads - before.reads) / ok;
  const writes = (after.writes - before.writes) / ok;
  const { latency: l, non2xx, errors, timeouts } = result;
  const okPerSecond = result['2xx'] / seconds;
  console.log(
    `${title.padEnd(40)} ${okPerSecond.toFixed(0).padStart(6)} 2xx/s  p50 ${String(l.p50).padStart(3)} ms  p99 ${String(l.p99).padStart(3)} ms  max ${String(l.max).padStart(4)} ms  non-2xx ${non2xx}  errors ${errors + timeouts}  CPU/2xx: server ${serverUs.toFixed(0)} µs, Redis ${redisUs.toFixed(0)} µs  syscalls/2xx: read ${reads.toFixed(2)}, write ${writes.toFixed(2)}`,
  );
  return { title, okPerSecond, serverUs, cpuUs: serverUs + redisUs, result };
}

/**
 * Servers loaded at once, each at `rate` req/s on its own connections: a host that slows down (2 shared cores)
 * slows them all in the same window, so their CPU per 2xx ratios move least with the neighbours. The loads
 * start in an order rotated by `round`: started first, a server measured a few percent apart from itself
 * started later. Returns each server's CPU µs per 2xx.
 */
async function runTogether(
  title: string,
  targets: { server: ChildProcess; url: string; requests: autocannon.Request[] }[],
  rate: number,
  round: number,
): Promise<number[]> {
  const load = (duration: number) => {
    const started = new Map<number, Promise<autocannon.Result>>();
    for (let k = 0; k < targets.length; k++) {
      const i = (k + round) % targets.length;
      const { url, requests } = targets[i]!;
      started.set(i, autocannon({ url, connections: 20, requests, overallRate: rate, title, duration }));
    }
    return Promise.all(targets.map((_, i) => started.get(i)!));
  };
  await load(1);
  const before = targets.map(({ server }) => usage(server.pid!).cpuUs);
  const results = await load(seconds);
  return results.map((result, i) => {
    if (result.non2xx > 0) process.exitCode = 1;
    return (usage(targets[i]!.server.pid!).cpuUs - before[i]!) / Math.max(1, result['2xx']);
  });
}

// Whatever happens to this script, nothing it started outlives it.
const children = new Set<ChildProcess>();
process.on('exit', () => {
  for (const child of children) child.kill('SIGKILL');
});

/** Runs a TypeScript entry as its own Node process and waits until `ready` says it answers. */
async function startProcess(
  args: string[],
  env: Record<string, string>,
  ready: () => Promise<boolean>,
  cwd = REPO_ROOT,
  node = process.execPath,
) {
  // A built gateway (dist/*.js) runs on plain Node, as in its image, and so does this checkout's TypeScript
  // (the floor, the baseline, BENCH_SOURCE's gateway: Node strips the types, as `pnpm start` runs it);
  // another checkout's source goes through tsx, which renames every function made at run time (`__name`).
  const loader = args.some((arg) => arg.endsWith('.js')) || cwd === REPO_ROOT ? [] : ['--import', 'tsx'];
  const child = spawn(node, [...loader, ...args], {
    cwd,
    env: { ...process.env, ...env },
    stdio: ['ignore', 'ignore', 'inherit'],
  });
  children.add(child);
  const deadline = Date.now() + 30_000;
  while (!(await ready().catch(() => false))) {
    if (child.exitCode !== null || Date.now() > deadline) {
      child.kill('SIGKILL');
      throw new Error(`${args.at(-1)} did not start`);
    }
    await sleep(100);
  }
  return child;
}
async function stopProcess(child: ChildProcess) {
  if (child.exitCode !== null) return;
  child.kill('SIGTERM');
  await once(child, 'exit');
}
const answers = (url: string) => async () => (await fetch(url, { method: 'POST', body: '{}' })).ok;

const redisServer = await startRedisServer();
children.add(redisServer.process);
const redis = new Redis(redisServer.url, { maxRetriesPerRequest: null });
const flush = () => redis.flushall();
console.log(
  `autocannon, ${connections} connections, ${seconds} s per run; saturation and ${FIXED_RATE} req/s; client, servers and Redis share this machine's cores`,
);

const basePort = await freePort();
const baseUrl = `http://127.0.0.1:${basePort}/`;
const baseline = await startProcess(
  ['test/bench/bullmq-baseline-server.ts', redisServer.url, String(basePort), 'baseline'],
  {},
  answers(baseUrl),
);
// BENCH_GATEWAY_PROCESSES=<n> runs the gateway with GATEWAY_PROCESSES=<n> (default 1, as the gateway's own
// default). Then, so that ours is not the only side with more than one process, the baseline also runs as
// n processes (node:cluster) in every round, ours is given as a ratio of both, and the same gateway as one
// process is run beside it.
const processes = Number(process.env.BENCH_GATEWAY_PROCESSES ?? 1);
const ours = processes > 1 ? `ours (${processes} processes)` : 'ours';
const manyBasePort = processes > 1 ? await freePort() : undefined;
const manyBaseUrl = `http://127.0.0.1:${manyBasePort}/`;
const manyBaseline = manyBasePort
  ? await startProcess(
      ['test/bench/bullmq-baseline-server.ts', redisServer.url, String(manyBasePort), 'baseline', String(processes)],
      {},
      answers(manyBaseUrl),
    )
  : undefined;
const gatewayPort = await freePort();
const gatewayUrl = `http://127.0.0.1:${gatewayPort}`;
// BENCH_CPU_PROF=1 writes a CPU profile of every gateway (ours, with tracing on, BENCH_AGAINST's) and of the floor
// to .prof/ (BENCH_AGAINST's under its own checkout), one file per process named by its role and pid (open it in
// Chrome's DevTools): ours and the floor profiled in the same run, serving the same bodies.
const profile = (role: string) =>
  process.env.BENCH_CPU_PROF
    ? ['--cpu-prof', '--cpu-prof-dir=.prof', `--cpu-prof-name=${role}-\${pid}.cpuprofile`]
    : [];
const gatewayEnv = (port: number) => ({
  PORT: String(port),
  HOST: '127.0.0.1',
  REDIS_URL: redisServer.url,
  QUEUE_NAME: 'bench',
  LOG_LEVEL: 'warn',
  TRUST_PROXY: 'true',
  GATEWAY_PROCESSES: String(processes),
  // Tracing off, whatever the shell says; the tracing rounds set their own.
  OTEL_EXPORTER_OTLP_ENDPOINT: '',
  OTEL_EXPORTER_OTLP_TRACES_ENDPOINT: '',
});
// The gateway runs as it ships (infra/docker/Dockerfile: tsup's build, `node dist/main.js`), in this checkout
// and in BENCH_AGAINST's, each built first. BENCH_SOURCE=1 runs both from source instead (see startProcess).
const fromSource = process.env.BENCH_SOURCE === '1';
function gatewayEntry(dir: string): string {
  if (fromSource) return 'apps/gateway/src/main.ts';
  execFileSync('pnpm', ['exec', 'tsup', '--silent'], {
    cwd: `${dir.replace(/\/$/, '')}/apps/gateway`,
    stdio: 'ignore',
  });
  return 'apps/gateway/dist/main.js';
}
const ourEntry = gatewayEntry(REPO_ROOT);
console.log(
  `the gateways run ${fromSource ? 'from source (BENCH_SOURCE=1)' : 'as built (apps/gateway/dist/main.js, as the image runs it)'}`,
);
const healthy = (url: string) => async () => (await fetch(`${url}/healthz`)).ok;
const gateway = await startProcess([...profile('ours'), ourEntry], gatewayEnv(gatewayPort), healthy(gatewayUrl));

const toBaseline = contactOnly.map((r) => ({ ...r, path: '/' }));
const mixToBaseline = mixed.map((r) => ({ ...r, path: '/' }));

// The Koa floor (koa-floor-server.ts: Koa, the raw body, JSON.parse, one add), in every round, on the same
// bodies as ours (the contact body, and the mix's bodies in the mix's proportions): the goal is ours ÷ this
// floor, by 2xx/s and by server CPU per 2xx.
/** The floor with a claim (`BENCH_FLOOR=1`), by koa-floor-server.ts's mode: what its row's title adds. */
const CLAIM_FLOORS = { claim: '', 'claim-batched': ', batched per turn', 'claim-auto': ', auto-pipelining' };
async function startFloor(mode: 'bare' | keyof typeof CLAIM_FLOORS) {
  const port = await freePort();
  const url = `http://127.0.0.1:${port}/`;
  const server = await startProcess(
    [...profile(`floor-${mode}`), 'test/bench/koa-floor-server.ts', redisServer.url, String(port), 'floor', mode],
    {},
    answers(url),
  );
  return { server, url };
}
const floor = await startFloor('bare');

/**
 * A server run once per round after ours, on /api/contact, reported as a ratio of the baseline and of the
 * floor; with `toOurs`, also as a ratio of ours on /api/contact (2xx/s and CPU per 2xx) in the same round,
 * and by server CPU per 2xx loaded side by side with ours (`together`: this ÷ ours, at BENCH_TOGETHER_RATE).
 */
type Extra = {
  title: string;
  server: ChildProcess;
  url: string;
  requests: autocannon.Request[];
  ratios: number[];
  toFloor: number[];
  /** Server CPU per 2xx, this ÷ the floor's on the contact body, per round. */
  cpuToFloor: number[];
  toOurs?: { ok: number[]; cpu: number[]; together: number[] };
};
const extras: Extra[] = [];
/** An extra row, its figures still to come. */
function extraRow(title: string, server: ChildProcess, url: string, requests: autocannon.Request[]): Extra {
  return { title, server, url, requests, ratios: [], toFloor: [], cpuToFloor: [] };
}
async function addGateway(title: string, env: Record<string, string>, cwd = REPO_ROOT, toOurs = false) {
  const port = await freePort();
  const url = `http://127.0.0.1:${port}`;
  const entry = cwd === REPO_ROOT ? ourEntry : gatewayEntry(cwd);
  // The profile's name: the title's first words ('tracing-on-10' for 'tracing on, 10 %: …').
  const role = title.split(':')[0]!.replace(/\W+/g, '-').replace(/-$/, '');
  const server = await startProcess([...profile(role), entry], { ...gatewayEnv(port), ...env }, healthy(url), cwd);
  extras.push({
    ...extraRow(title, server, url, contactOnly),
    ...(toOurs ? { toOurs: { ok: [], cpu: [], together: [] } } : {}),
  });
}
// With more than one gateway process, the same gateway as one process, for what the processes add.
if (processes > 1) await addGateway('ours, one process: POST /api/contact', { GATEWAY_PROCESSES: '1' });
// BENCH_AGAINST=<another checkout, installed>: its gateway runs /api/contact and the mix in every round, right
// after ours, and at the fixed rate: a change measured side by side with the code before it, in the same run
// (with the same GATEWAY_PROCESSES, which a checkout from before that setting ignores).
const againstDir = process.env.BENCH_AGAINST;
const againstPort = againstDir ? await freePort() : undefined;
const againstUrl = `http://127.0.0.1:${againstPort}`;
// BENCH_AGAINST_NODE=<a node binary> runs that gateway on another Node: the code before, on the runtime it had.
const againstNode = process.env.BENCH_AGAINST_NODE || process.execPath;
const against = againstPort
  ? await startProcess(
      [...profile('against'), gatewayEntry(againstDir!)],
      gatewayEnv(againstPort),
      healthy(againstUrl),
      againstDir,
      againstNode,
    )
  : undefined;
if (against) {
  const versions = (node: string) => execFileSync(node, ['-v'], { encoding: 'utf8' }).trim();
  console.log(`ours on Node ${versions(process.execPath)}; against (${againstDir}) on Node ${versions(againstNode)}`);
}
// Tracing on, at 100 % and at 10 %: the collector is a stand-in that takes each export and drops it (read
// whole, answered 200, not decoded), so what is measured is the gateway's cost of making and sending spans.
const collector = { requests: 0, bytes: 0 };
const collectorServer = createServer((req, res) => {
  collector.requests++;
  req.on('data', (chunk: Buffer) => (collector.bytes += chunk.length));
  req.on('end', () => res.writeHead(200, { 'content-type': req.headers['content-type'] ?? 'application/json' }).end());
});
if (process.env.BENCH_TRACING !== '0') {
  collectorServer.listen(0, '127.0.0.1');
  await once(collectorServer, 'listening');
  const endpoint = `http://127.0.0.1:${(collectorServer.address() as AddressInfo).port}`;
  // BENCH_OTLP_PROTOCOL names one protocol or several (`http/json,http/protobuf`): the tracing rows, for each.
  const protocols = process.env.BENCH_OTLP_PROTOCOL?.split(',').map((p) => p.trim()) ?? [undefined];
  for (const protocol of protocols) {
    const traced = {
      OTEL_EXPORTER_OTLP_ENDPOINT: endpoint,
      ...(protocol ? { OTEL_EXPORTER_OTLP_PROTOCOL: protocol } : {}),
    };
    const named = protocols.length > 1 ? ` (${protocol})` : '';
    await addGateway(
      `tracing on, 100 %${named}: POST /api/contact`,
      { ...traced, OTEL_TRACES_SAMPLER: 'parentbased_always_on' },
      REPO_ROOT,
      true,
    );
    await addGateway(
      `tracing on, 10 %${named}: POST /api/contact`,
      { ...traced, OTEL_TRACES_SAMPLER: 'parentbased_traceidratio', OTEL_TRACES_SAMPLER_ARG: '0.1' },
      REPO_ROOT,
      true,
    );
  }
}
// BENCH_FLOOR=1 adds the floor with the claim script (Koa + claim + add): a call per request, batched per turn
// as the gateway does it, and with auto-pipelining: what the claim costs on top of the floor.
if (process.env.BENCH_FLOOR === '1') {
  for (const [mode, variant] of Object.entries(CLAIM_FLOORS) as [keyof typeof CLAIM_FLOORS, string][]) {
    const { server, url } = await startFloor(mode);
    extras.push(extraRow(`Koa floor + claim${variant}`, server, url, toBaseline));
  }
}

// Every server stays up (an idle one costs nothing) and their runs alternate, so a change in what else
// the machine is doing skews both sides of a ratio alike. BENCH_ROUNDS repeats the runs at saturation;
// the ratios reported are the medians.
const rounds = Number(process.env.BENCH_ROUNDS ?? 1);
const rows: Row[] = [];
/** Per round: 2xx/s ratios, and server CPU per 2xx ratios (the first over the second, as named). */
/** Per round, one ratio on /api/contact and one on the mix; printed per round and as medians. */
type Pair = { contact: number[]; mix: number[] };
const pair = (): Pair => ({ contact: [], mix: [] });
const ratios = {
  toBase: pair(),
  toMany: pair(),
  cpuOfBase: pair(),
  toFloor: pair(),
  serverCpuToFloor: pair(),
  againstToFloor: pair(),
  againstServerCpuToFloor: pair(),
  toAgainst: pair(),
  serverCpuToAgainst: pair(),
  againstToBase: pair(),
  together: pair(),
  togetherAgainst: pair(),
};
// BENCH_TOGETHER_RATE: the rate of each server in the side-by-side runs (0 leaves them out).
const togetherRate = Number(process.env.BENCH_TOGETHER_RATE ?? 1_000);
const f2 = (x: number | undefined) => (x === undefined ? '-' : x.toFixed(2));
/** Servers' rows of one round: on /api/contact and on the mix. */
type Rows = { contact: Row; mix: Row };
const okPerSecond = (row: Row) => row.okPerSecond;
const serverUs = (row: Row) => row.serverUs;
/** Records `of(top) ÷ of(bottom)`, on /api/contact and on the mix. */
function record({ contact, mix }: Pair, top: Rows, bottom: Rows, of: (row: Row) => number) {
  contact.push(of(top.contact) / of(bottom.contact));
  mix.push(of(top.mix) / of(bottom.mix));
}
const lastPair = (p: Pair) => `${f2(p.contact.at(-1))}, ${f2(p.mix.at(-1))}`;
const lastLabelled = (p: Pair) => `/api/contact ${f2(p.contact.at(-1))}, mix ${f2(p.mix.at(-1))}`;
const medianPair = (p: Pair) => `${f2(median(p.contact))}   ${f2(median(p.mix))}`;
const medians = (p: Pair) => `/api/contact ${f2(median(p.contact))}   mix ${f2(median(p.mix))}`;
let queued = 0;
let lastOk = 0;
for (let round = 1; round <= rounds; round++) {
  await flush();
  const base = await run(`baseline: http + JSON.parse + add`, baseline, baseUrl, toBaseline);
  await flush();
  const many = manyBaseline && (await run(`baseline, ${processes} processes`, manyBaseline, manyBaseUrl, toBaseline));
  await flush();
  const floorContact = await run('Koa floor: contact bodies', floor.server, floor.url, toBaseline);
  await flush();
  const contact = await run(`${ours}: POST /api/contact`, gateway, gatewayUrl, contactOnly);
  await flush();
  const againstContact = against && (await run('against: POST /api/contact', against, againstUrl, contactOnly));
  await flush();
  const floorMix = await run('Koa floor: the mix bodies', floor.server, floor.url, mixToBaseline);
  await flush();
  const mix = await run(`${ours}: the mix`, gateway, gatewayUrl, mixed);
  queued = Number(await redis.llen('bull:bench:wait'));
  lastOk = mix.result['2xx'];
  await flush();
  const againstMix = against && (await run('against: the mix', against, againstUrl, mixed));
  // After the mix's jobs are counted: the other runs start from a flushed Redis too.
  for (const extra of extras) {
    await flush();
    const row = await run(extra.title, extra.server, extra.url, extra.requests);
    extra.ratios.push(row.okPerSecond / base.okPerSecond);
    extra.toFloor.push(row.okPerSecond / floorContact.okPerSecond);
    extra.cpuToFloor.push(row.serverUs / floorContact.serverUs);
    extra.toOurs?.ok.push(row.okPerSecond / contact.okPerSecond);
    extra.toOurs?.cpu.push(contact.cpuUs / row.cpuUs);
    rows.push(row);
  }
  rows.push(base, floorContact, contact, floorMix, mix, ...(many ? [many] : []));
  const oursRows = { contact, mix };
  const floorRows = { contact: floorContact, mix: floorMix };
  const baseRows = { contact: base, mix: base };
  record(ratios.toBase, oursRows, baseRows, okPerSecond);
  record(ratios.toFloor, oursRows, floorRows, okPerSecond);
  record(ratios.serverCpuToFloor, oursRows, floorRows, serverUs);
  if (againstContact && againstMix) {
    rows.push(againstContact, againstMix);
    const againstRows = { contact: againstContact, mix: againstMix };
    record(ratios.againstToBase, againstRows, baseRows, okPerSecond);
    record(ratios.againstToFloor, againstRows, floorRows, okPerSecond);
    record(ratios.againstServerCpuToFloor, againstRows, floorRows, serverUs);
    record(ratios.toAgainst, oursRows, againstRows, okPerSecond);
    record(ratios.serverCpuToAgainst, oursRows, againstRows, serverUs);
  }
  if (togetherRate > 0) {
    for (const [side, name, floorRequests, ourRequests] of [
      ['contact', '/api/contact', toBaseline, contactOnly],
      ['mix', 'the mix', mixToBaseline, mixed],
    ] as const) {
      await flush();
      const [floorUs, oursUs, againstUs] = await runTogether(
        name,
        [
          { server: floor.server, url: floor.url, requests: [...floorRequests] },
          { server: gateway, url: gatewayUrl, requests: [...ourRequests] },
          ...(against ? [{ server: against, url: againstUrl, requests: [...ourRequests] }] : []),
        ],
        togetherRate,
        round,
      );
      ratios.together[side].push(oursUs! / floorUs!);
      if (againstUs !== undefined) ratios.togetherAgainst[side].push(againstUs / floorUs!);
      console.log(
        `side by side at ${togetherRate}/s each, ${name}: server CPU per 2xx floor ${floorUs!.toFixed(0)} µs, ours ${oursUs!.toFixed(0)} µs${againstUs === undefined ? '' : `, against ${againstUs.toFixed(0)} µs`}`,
      );
    }
  }
  // Tracing on and off side by side: ours and every tracing gateway loaded at once on /api/contact, so the
  // machine's swings (a tenth and more from one run to the next) move both sides of each ratio alike.
  const traced = extras.filter((extra) => extra.toOurs);
  if (togetherRate > 0 && traced.length > 0) {
    await flush();
    const [offUs, ...onUs] = await runTogether(
      'tracing',
      [{ server: gateway, url: gatewayUrl }, ...traced].map(({ server, url }) => ({
        server,
        url,
        requests: [...contactOnly],
      })),
      togetherRate,
      round,
    );
    for (const [i, extra] of traced.entries()) extra.toOurs!.together.push(onUs[i]! / offUs!);
    console.log(
      `side by side at ${togetherRate}/s each, /api/contact: server CPU per 2xx tracing off ${offUs!.toFixed(0)} µs, ${traced.map((extra, i) => `${extra.title.replace(/: POST \/api\/contact$/, '')} ${onUs[i]!.toFixed(0)} µs`).join(', ')}`,
    );
  }
  if (many) record(ratios.toMany, oursRows, { contact: many, mix: many }, okPerSecond);
  record(ratios.cpuOfBase, baseRows, oursRows, (row) => row.cpuUs);
  console.log(
    `round ${round}: ours ÷ Koa floor, 2xx/s: ${lastLabelled(ratios.toFloor)}; server CPU per 2xx, ours ÷ floor's: ${lastPair(ratios.serverCpuToFloor)}${against ? `;   against ÷ floor: ${lastPair(ratios.againstToFloor)}, CPU ${lastPair(ratios.againstServerCpuToFloor)}` : ''}`,
  );
  console.log(
    `round ${round}: ours ÷ baseline, 2xx/s: ${lastLabelled(ratios.toBase)}${many ? `;   ÷ baseline in ${processes} processes: ${lastPair(ratios.toMany)}` : ''};   by CPU per 2xx (server + Redis): ${lastPair(ratios.cpuOfBase)}`,
  );
}
// BENCH_FIXED_RATE=0 skips the fixed-rate runs (a quicker look at saturation while trying a change).
const fixedRuns =
  process.env.BENCH_FIXED_RATE === '0'
    ? []
    : ([
        ['baseline', baseline, baseUrl, toBaseline],
        ['Koa floor: contact bodies', floor.server, floor.url, toBaseline],
        [`${ours}: /api/contact`, gateway, gatewayUrl, contactOnly],
        [`${ours}: the mix`, gateway, gatewayUrl, mixed],
        ...(against
          ? ([
              ['against: /api/contact', against, againstUrl, contactOnly],
              ['against: the mix', against, againstUrl, mixed],
            ] as const)
          : []),
      ] as const);
const fixed = new Map<string, Row>();
for (const [title, server, url, requests] of fixedRuns) {
  await flush();
  const row = await run(`${title} at ${FIXED_RATE}/s`, server, url, [...requests], FIXED_RATE);
  fixed.set(title, row);
  rows.push(row);
}
await stopProcess(gateway);
await stopProcess(baseline);
await stopProcess(floor.server);
if (against) await stopProcess(against);

function median(xs: number[]): number {
  const sorted = [...xs].sort((a, b) => a - b);
  const mid = Math.floor(sorted.length / 2);
  return sorted.length % 2 ? sorted[mid]! : (sorted[mid - 1]! + sorted[mid]!) / 2;
}
console.log(
  `--- medians of ${rounds} round(s) at saturation (goal: ours ÷ Koa floor ≥ 0.8 by 2xx/s, ≤ 1.3 by server CPU per 2xx)`,
);
console.log(`ours ÷ Koa floor, 2xx/s: ${medians(ratios.toFloor)}`);
console.log(`ours ÷ Koa floor, server CPU per 2xx: ${medians(ratios.serverCpuToFloor)}`);
if (togetherRate > 0) {
  console.log(
    `side by side at ${togetherRate}/s each, ours ÷ Koa floor by server CPU per 2xx: ${medians(ratios.together)}${against ? `;   against ÷ Koa floor: ${medianPair(ratios.togetherAgainst)}` : ''}`,
  );
}
if (against) {
  console.log(`against ÷ Koa floor, 2xx/s: ${medians(ratios.againstToFloor)}`);
  console.log(`against ÷ Koa floor, server CPU per 2xx: ${medians(ratios.againstServerCpuToFloor)}`);
  console.log(
    `ours ÷ against (after ÷ before), 2xx/s: ${medians(ratios.toAgainst)};   server CPU per 2xx: ${medianPair(ratios.serverCpuToAgainst)}`,
  );
}
if (fixed.size > 0) {
  const p99 = (title: string) => (fixed.has(title) ? `${fixed.get(title)!.result.latency.p99} ms` : '-');
  console.log(
    `p99 at ${FIXED_RATE}/s: ours /api/contact ${p99(`${ours}: /api/contact`)}, mix ${p99(`${ours}: the mix`)}${against ? `;   against /api/contact ${p99('against: /api/contact')}, mix ${p99('against: the mix')}` : ''};   Koa floor ${p99('Koa floor: contact bodies')}, baseline ${p99('baseline')}`,
  );
}
console.log(`ours ÷ baseline 2xx/s at saturation: ${medians(ratios.toBase)}`);
if (against)
  console.log(
    `against ÷ baseline 2xx/s at saturation (against on ${againstNode === process.execPath ? 'our Node' : againstNode}): ${medians(ratios.againstToBase)}`,
  );
console.log(`ours ÷ baseline by CPU per 2xx (baseline's ÷ ours, server + Redis): ${medians(ratios.cpuOfBase)}`);
if (manyBaseline) {
  console.log(`ours ÷ baseline in ${processes} processes, 2xx/s: ${medians(ratios.toMany)}`);
  await stopProcess(manyBaseline);
}
for (const extra of extras) {
  console.log(
    `${extra.title}, 2xx/s ÷ baseline ${f2(median(extra.ratios))}, ÷ Koa floor ${f2(median(extra.toFloor))};   server CPU per 2xx ÷ Koa floor's ${f2(median(extra.cpuToFloor))}`,
  );
  await stopProcess(extra.server);
}
for (const { title, toOurs } of extras) {
  if (!toOurs) continue;
  console.log(
    `${title} ÷ ours with tracing off: 2xx/s ${median(toOurs.ok).toFixed(2)}   by CPU per 2xx (off's ÷ this) ${median(toOurs.cpu).toFixed(2)}${toOurs.together.length ? `;   side by side, server CPU per 2xx on ÷ off ${median(toOurs.together).toFixed(2)}×` : ''}`,
  );
}
if (collector.requests > 0)
  console.log(
    `collector stand-in: ${collector.requests} OTLP export requests, ${(collector.bytes / 1e6).toFixed(1)} MB`,
  );
collectorServer.close();
// autocannon stops with up to `connections` requests in flight, enqueued but not counted as answered (and
// the warm-up's jobs are there too); fewer jobs than 2xx answers would mean an acknowledged one was lost.
const lost = Math.max(0, lastOk - queued);
console.log(
  `last mix run: ${lastOk} acknowledged, ${queued} jobs in Redis: ${lost === 0 ? 'none lost' : `${lost} LOST`}`,
);
if (lost > 0 || rows.some((r) => r.result.non2xx > 0)) process.exitCode = 1;

redis.disconnect();
await redisServer.stop();
