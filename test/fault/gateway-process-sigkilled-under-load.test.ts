import { randomUUID } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { request } from 'node:http';
import { Queue } from 'bullmq';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { acknowledgedIds, sendCreatorsUnderLoad } from '../support/load.ts';
import { childPids } from '../support/proc.ts';
import { sampleValue, scrape } from '../support/prometheus.ts';
import { type GatewayProcess, spawnGateway } from '../support/spawn-app.ts';
import { eventually, sleep } from '../support/wait.ts';

// GATEWAY_PROCESSES=2: one port, two gateway processes under a primary. One process is SIGKILLed under
// load; the primary starts another, the port keeps answering, /admin/metrics still counts every process's
// requests (summed by the primary), and a SIGTERM to the primary drains both with nothing acknowledged lost.
const TOKEN = 'gateway-processes-token-0123456789';
const queueName = `processes-${randomUUID()}`;
/** How long each load runs before its fault (a kill, a SIGTERM), and on after a replacement listens. */
const LOAD_BEFORE_KILL_MS = 1_500;
const LOAD_ON_REPLACEMENT_MS = 1_000;
const LOAD_BEFORE_SIGTERM_MS = 1_000;
let queue: Queue;
let gateway: GatewayProcess | undefined;

beforeAll(() => {
  queue = new Queue(queueName, { connection: { url: inject('redisUrl') } });
});
afterAll(async () => {
  for (const pid of gateway?.child.pid ? childrenOf(gateway.child.pid) : []) process.kill(pid, 'SIGKILL');
  if (gateway?.child.exitCode === null) gateway.child.kill('SIGKILL');
  await queue?.obliterate({ force: true });
  await queue?.close();
});

/** The gateway processes whose parent is `pid` (tsx's esbuild service is a child too). */
function childrenOf(pid: number): number[] {
  return childPids(pid).filter((child) => {
    try {
      return readFileSync(`/proc/${child}/cmdline`, 'utf8').includes('gateway/src/main.ts');
    } catch {
      return false; // gone in between
    }
  });
}

/** One POST on a connection of its own, so the primary hands each to the next process in turn. */
function postOnNewConnection(url: string, body: unknown): Promise<number> {
  return new Promise((resolve, reject) => {
    const req = request(
      url,
      { method: 'POST', agent: false, headers: { 'content-type': 'application/json' } },
      (res) => {
        res.resume();
        res.on('end', () => resolve(res.statusCode!));
      },
    );
    req.on('error', reject);
    req.end(JSON.stringify(body));
  });
}

describe('two gateway processes, one SIGKILLed under load', () => {
  it('is replaced, metrics count both processes, and a SIGTERM drains both losing nothing', async () => {
    const running = await spawnGateway({
      REDIS_URL: inject('redisUrl'),
      QUEUE_NAME: queueName,
      GATEWAY_PROCESSES: '2',
      LOG_LEVEL: 'info',
      ADMIN_TOKEN: TOKEN,
      RATE_LIMIT_REQUESTS: '0',
    });
    gateway = running;
    const first = childrenOf(running.child.pid!);
    expect(first).toHaveLength(2);

    let stopLoad = false;
    const tag = `proc-${randomUUID()}`;
    const underKill = sendCreatorsUnderLoad(() => running.url, { lanes: 10, max: 20_000, until: () => stopLoad, tag });
    await sleep(LOAD_BEFORE_KILL_MS);
    process.kill(first[0]!, 'SIGKILL');
    // Replaced: two processes again, the new one listening.
    await eventually(
      async () => {
        const now = childrenOf(running.child.pid!);
        const replacement = now.find((pid) => !first.includes(pid));
        return now.length === 2 && running.output().includes(`gateway process ${replacement} listening`);
      },
      { timeoutMs: 30_000, everyMs: 100 },
    );
    await sleep(LOAD_ON_REPLACEMENT_MS);
    stopLoad = true;
    const sent = await underKill;
    // Only requests in flight on the killed process's connections went unanswered; no other status.
    expect(sent.filter((s) => s.status !== undefined && s.status !== 200)).toEqual([]);

    // Forty requests, each on a new connection, alternate between the two processes; the scrape, answered
    // by one of them, counts all forty. Alone, a process would count its own twenty.
    const metrics = `${running.url}/admin/metrics`;
    const okSeries = { route: '/api/creator-signup', method: 'POST', status: '200' };
    const before = sampleValue((await scrape(metrics, TOKEN)).families, 'forms_http_requests_total', okSeries);
    for (let i = 0; i < 40; i++) {
      const body = { email: `${tag}-metrics-${i}@creators.example`, name: 'Creator' };
      expect(await postOnNewConnection(`${running.url}/api/creator-signup`, body)).toBe(200);
    }
    const { families } = await scrape(metrics, TOKEN);
    expect(sampleValue(families, 'forms_http_requests_total', okSeries) - before).toBe(40);
    // The queue's depth is read from Redis by each process: shown once, not once per process.
    expect(sampleValue(families, 'forms_queue_jobs', { state: 'waiting' })).toBe(await queue.getWaitingCount());

    // SIGTERM to the primary under load: both processes answer what they took, then all exit.
    let stopped = false;
    const draining = sendCreatorsUnderLoad(() => running.url, {
      lanes: 10,
      max: 20_000,
      until: () => stopped,
      tag: `${tag}-term`,
    });
    await sleep(LOAD_BEFORE_SIGTERM_MS);
    const processes = childrenOf(running.child.pid!);
    running.child.kill('SIGTERM');
    expect(await running.exited).toBe(0);
    stopped = true;
    const drained = await draining;
    expect(drained.filter((s) => s.status !== undefined && s.status !== 200)).toEqual([]);
    for (const pid of processes) expect(() => process.kill(pid, 0)).toThrow();

    // Every submission answered 200, before the kill, after it and during the drain, is a job.
    const acknowledged = new Set([...acknowledgedIds(sent), ...acknowledgedIds(drained)]);
    const jobs = new Set((await queue.getJobs(['waiting'])).map((job) => job.id));
    expect([...acknowledged].filter((id) => !jobs.has(id))).toEqual([]);
    console.log(
      `${acknowledged.size} acknowledged; ${sent.filter((s) => s.status === undefined).length} in flight on the killed process went unanswered`,
    );
  }, 120_000);
});
