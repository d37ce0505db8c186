import { randomUUID } from 'node:crypto';
import { loadConfig as gatewayConfig, startGateway } from '@forms/gateway';
import { SUBMISSION_ENDPOINTS } from '@forms/schemas';
import { createPostgresCrm, startWorker, loadConfig as workerConfig } from '@forms/worker';
import { Queue } from 'bullmq';
import { Command, Redis } from 'ioredis';
import { pino } from 'pino';
import { expect, it } from 'vitest';
import { createWorkerRedis } from '../../apps/worker/src/create-worker-redis.ts';
import { openTestDatabase } from '../support/crm-database.ts';
import { startPartitionableCluster } from '../support/partitionable-cluster.ts';
import { stopWithin } from '../support/stop-within.ts';
import { validBody } from '../support/valid-bodies.ts';
import { eventually, sleep } from '../support/wait.ts';

/** One logical submission as its client saw it: every attempt under one Idempotency-Key, and the answer. */
type Sent = {
  email: string;
  contact: boolean;
  attempts: number;
  status: number | 'gave-up';
  recordId?: string;
  /** Every answer but the last 200: statuses, or `timeout` / `dropped`. */
  refusals: (number | string)[];
};

const PARTITION_MS = 6_000;
const HOLD_MS = 10_000;
const ADMIN_TOKEN = 'partition-admin-token';

/**
 * Sends keyed submissions (every endpoint in turn, each its own email and Idempotency-Key), 32 at a time,
 * each retried with the same key and body after any answer but 200 (a 503, a dropped connection, no answer
 * in time), as the site client does, until it is answered 200 or `deadlineMs` has passed.
 */
async function sendKeyed(url: string, tag: string, stop: () => boolean, deadlineMs: number): Promise<Sent[]> {
  const sent: Sent[] = [];
  let next = 0;
  async function lane() {
    while (!stop()) {
      const i = next++;
      const endpoint = SUBMISSION_ENDPOINTS[i % SUBMISSION_ENDPOINTS.length]!;
      const body = JSON.stringify(validBody(endpoint.kind, `${tag}-${i}`));
      const headers = { 'content-type': 'application/json', 'idempotency-key': randomUUID() };
      const one: Sent = {
        email: String(JSON.parse(body)[endpoint.emailField]),
        contact: endpoint.contact,
        attempts: 0,
        status: 'gave-up',
        refusals: [],
      };
      const until = Date.now() + deadlineMs;
      while (Date.now() < until) {
        one.attempts++;
        try {
          const res = await fetch(`${url}${endpoint.path}`, {
            method: endpoint.method,
            headers,
            body,
            // The gateway answers within its hold (REDIS_HOLD_MS): longer than that is no answer.
            signal: AbortSignal.timeout(HOLD_MS + 2_000),
          });
          const answer = (await res.json()) as { recordId?: string };
          if (res.status === 200) {
            one.status = 200;
            if (answer.recordId) one.recordId = answer.recordId;
            break;
          }
          one.refusals.push(res.status);
        } catch (err) {
          // a dropped connection or no answer in time: retried like a 503
          one.refusals.push((err as Error).name === 'TimeoutError' ? 'timeout' : 'dropped');
        }
        await sleep(200);
      }
      sent.push(one);
    }
  }
  await Promise.all(Array.from({ length: 32 }, lane));
  return sent;
}

/** `CLUSTER FAILOVER TAKEOVER` on a replica of `slot`'s master, found in CLUSTER SLOTS, reached as clients reach it. */
async function takeOverSlot(ports: number[], slot: number): Promise<void> {
  const ask = new Redis({
    port: ports[0]!,
    host: '127.0.0.1',
    lazyConnect: true,
    connectTimeout: 1_000,
    retryStrategy: () => null,
  });
  try {
    await ask.connect();
    const ranges = (await ask.call('CLUSTER', 'SLOTS')) as [number, number, ...[string, number][]][];
    const replica = ranges.find(([from, to]) => slot >= from && slot <= to)?.[3];
    if (!replica) throw new Error(`no replica of slot ${slot}'s master`);
    const promoted = new Redis({ port: replica[1], host: '127.0.0.1', lazyConnect: true, retryStrategy: () => null });
    try {
      await promoted.connect();
      await promoted.call('CLUSTER', 'FAILOVER', 'TAKEOVER');
    } finally {
      promoted.disconnect();
    }
  } finally {
    ask.disconnect();
  }
}

/**
 * Whether a node names another master than `victim` for `slot` (a replica promoted): asked of every node on
 * its own port, since the isolated master still names itself.
 */
async function failedOver(ports: number[], slot: number, victim: number): Promise<boolean> {
  const named = await Promise.all(
    ports.map(async (port) => {
      const redis = new Redis({
        port,
        host: '127.0.0.1',
        lazyConnect: true,
        connectTimeout: 500,
        retryStrategy: () => null,
      });
      try {
        await redis.connect();
        const ranges = (await redis.call('CLUSTER', 'SLOTS')) as [number, number, [string, number]][];
        return ranges.find(([from, to]) => slot >= from && slot <= to)?.[2][1];
      } catch {
        return undefined; // a node going away: the others answer
      } finally {
        redis.disconnect();
      }
    }),
  );
  return named.some((master) => master !== undefined && master !== victim);
}

// The queue slot's master cut off from the other nodes (bus and data ports) for 6 s while the gateway and
// the worker still reach it, durable acks on (REDIS_ACK_REPLICAS=1). Every write it takes then is held by
// the gateway (its replica never acknowledges: REDIS_HOLD_MS), but the worker still connected to it takes
// those jobs and delivers them. The gateway tries each add again inside its request, under the same ids;
// once the slot has moved, the tries reach the promoted replica, which never saw the job, the key nor the
// contact's claim. (Clients still retry with the same Idempotency-Key after any answer but 200, as the site
// client does; with the partition shorter than the hold none has to.) Each submission must still be stored
// once, and every recordId answered must be the CRM's record for it.
it('stores each keyed submission once, under the recordId it answered, through a partition of the queue master', async () => {
  const cluster = await startPartitionableCluster({ nodeTimeoutMs: 1_500 });
  const store = await openTestDatabase();
  const db = await store.read();
  const env = {
    REDIS_CLUSTER_NODES: cluster.seeds,
    QUEUE_NAME: `partition-${randomUUID()}`,
    REDIS_ACK_REPLICAS: '1',
    // All the load comes from 127.0.0.1: the per-client limit would answer it 429.
    RATE_LIMIT_REQUESTS: '0',
    LOG_LEVEL: 'silent',
    // A job the demoted master had handed out comes back to the worker after one lock period: short here.
    WORKER_LOCK_DURATION_MS: '2000',
    // Enough to take every job the isolated master holds at once (one per client in flight), as a busy
    // worker fleet would, rather than ten at a time on a loaded machine, past the moment it stops serving.
    WORKER_CONCURRENCY: '64',
    REDIS_HOLD_MS: String(HOLD_MS),
    ADMIN_TOKEN,
  };
  const worker = await startWorker(workerConfig(env), pino({ level: 'silent' }), { crm: createPostgresCrm(db) });
  const gateway = await startGateway(gatewayConfig({ ...env, PORT: '0', HOST: '127.0.0.1' }));
  const queue = new Queue(env.QUEUE_NAME, {
    connection: createWorkerRedis(workerConfig(env).redis),
    prefix: '{forms}',
  });
  try {
    const started = Date.now();
    const slot = new Command('get', [`{forms}:${env.QUEUE_NAME}`]).getSlot();
    const tag = `pt${Date.now().toString(36)}`;
    let stopLoad = false;
    const load = sendKeyed(gateway.url, tag, () => stopLoad, 40_000);
    // (The keyed retries stay: a client that meets a 503 past the hold, or a dropped connection, still retries.)
    // The partition falls on a load in its stride (a gateway still warming up takes few writes).
    await eventually(
      async () => (await db.query('SELECT 1 FROM submissions WHERE email LIKE $1', [`${tag}-%`])).rows.length >= 64,
      {
        timeoutMs: 30_000,
        everyMs: 100,
      },
    );
    const victim = await cluster.masterOf(slot);
    const isolatedAt = Date.now();
    cluster.isolate(victim);
    // Sent as the partition begins, so that some surely meet it whatever the load's timing (before, the test
    // asserted that the load had happened to have some held, and failed a run where none had): one per
    // lane, each held until the slot has failed over, then answered 200 and stored once like the rest.
    let heldSent = 0;
    const held = sendKeyed(gateway.url, `${tag}-held`, () => heldSent++ >= 32, 40_000);
    // The slot fails over inside the partition, driven: the cut-off master's replica takes it over (CLUSTER
    // FAILOVER TAKEOVER, no vote needed) while the master, alone, still serves the gateway and the worker.
    // Before, the test waited PARTITION_MS and asserted that the cluster had happened to fail it over by then
    // (and a slow election on a loaded machine left the slot where it was). The partition still lasts
    // PARTITION_MS, shorter than the hold.
    await takeOverSlot(cluster.ports, slot);
    await eventually(() => failedOver(cluster.ports, slot, victim), {
      timeoutMs: PARTITION_MS,
      everyMs: 100,
      explain: () => `the replica of ${victim} did not take the slot over`,
    });
    await sleep(Math.max(0, isolatedAt + PARTITION_MS - Date.now()));
    cluster.heal();
    const healedAt = Date.now();
    await cluster.waitHealthy({ slot, replicas: 1, timeoutMs: 30_000 });
    const healthyAfterMs = Date.now() - healedAt;
    await sleep(1_000);
    stopLoad = true;
    const sent = [...(await load), ...(await held)];

    const acknowledged = sent.filter((s) => s.status === 200);
    const drainFrom = Date.now();
    const stored = async () => {
      const { rows } = await db.query<{ email: string; id: string }>(
        'SELECT email, id FROM submissions WHERE email LIKE $1',
        [`${tag}-%`],
      );
      const byEmail = new Map<string, string[]>();
      for (const r of rows) byEmail.set(r.email, [...(byEmail.get(r.email) ?? []), r.id]);
      return byEmail;
    };
    // Everything acknowledged delivered, and the queue idle for longer than a lock period plus a stalled
    // check (a job the demoted master had handed out is delivered again only then).
    let idleSince: number | undefined;
    await eventually(
      async () => {
        try {
          const counts = await queue.getJobCounts('waiting', 'active', 'delayed', 'prioritized');
          if (!Object.values(counts).every((n) => n === 0)) idleSince = undefined;
          else idleSince ??= Date.now();
          const rows = await stored();
          return acknowledged.every((s) => rows.has(s.email)) && Date.now() - (idleSince ?? Date.now()) > 5_000;
        } catch {
          return false; // the cluster still refreshing its slots
        }
      },
      { timeoutMs: 40_000, everyMs: 250 },
    ).catch(() => {});

    const drainMs = Date.now() - drainFrom;
    const rows = await stored();
    const contacts = new Map(
      (
        await db.query<{ email: string; id: string }>('SELECT email, id FROM contacts WHERE email LIKE $1', [
          `${tag}-%`,
        ])
      ).rows.map((r) => [r.email, r.id]),
    );
    const retried = acknowledged.filter((s) => s.attempts > 1);
    const lost = acknowledged.filter((s) => !rows.has(s.email)).map((s) => s.email);
    const storedTwice = [...rows].filter(([, ids]) => ids.length > 1).map(([email]) => email);
    // A contact's recordId is its contacts row; every other kind's is its submission's own row.
    const notTheCrms = acknowledged
      .filter((s) => s.recordId !== undefined)
      .filter((s) => (s.contact ? contacts.get(s.email) !== s.recordId : !rows.get(s.email)?.includes(s.recordId!)))
      .map((s) => s.email);
    console.log(
      `[cluster] partition of the queue master, durable acks on: ${sent.length} keyed submissions, ` +
        `${acknowledged.length} acknowledged, ${retried.length} retried with their key before a 200, ` +
        `${sent.length - acknowledged.length} given up; CRM: ${[...rows.values()].flat().length} rows for ${rows.size} submissions, ` +
        `${storedTwice.length} stored more than once, ${lost.length} acknowledged and not stored, ` +
        `${notTheCrms.length} answered a recordId that is not the CRM's ` +
        `(healthy ${healthyAfterMs} ms after the heal, load ${drainFrom - started} ms, drain ${drainMs} ms)`,
    );
    const metrics = await (
      await fetch(`${gateway.url}/admin/metrics`, { headers: { authorization: `Bearer ${ADMIN_TOKEN}` } })
    ).text();
    const heldAndStored = Number(
      /^forms_submission_hold_duration_seconds_count\{[^}]*outcome="stored"[^}]*\} (\d+)/m.exec(metrics)?.[1] ?? 0,
    );
    console.log(`[cluster] ${heldAndStored} requests held through the partition and stored`);
    // The gateway held what met the partition (those sent as it began among them), shorter than the hold, so
    // no client saw a 503 (before the hold: 279 × 503 in its window) and none had to retry.
    expect(sent.filter((s) => s.refusals.length > 0).map((s) => s.refusals)).toEqual([]);
    expect(retried).toEqual([]);
    expect(sent.filter((s) => s.status !== 200)).toEqual([]);
    expect(storedTwice).toEqual([]);
    expect(lost).toEqual([]);
    expect(notTheCrms).toEqual([]);
  } finally {
    await stopWithin(
      [
        ['the test queue', () => queue.close()],
        ['the gateway', () => gateway.stop()],
        ['the worker', () => worker.stop()],
        ['the store', () => store.close()],
        ['the cluster', () => cluster.stop()],
      ],
      { label: '[cluster] partition test, stops' },
    );
  }
}, 120_000);
