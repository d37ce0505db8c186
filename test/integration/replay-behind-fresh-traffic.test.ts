import { randomUUID } from 'node:crypto';
import { loadConfig as gatewayConfig, type RunningGateway, startGateway } from '@forms/gateway';
import { type RunningWorker, startWorker, loadConfig as workerConfig } from '@forms/worker';
import { Queue } from 'bullmq';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { type FakeAirtable, startFakeAirtable } from '../support/airtable-server.ts';
import { airtableWorkerEnv } from '../support/airtable-worker.ts';
import { sendJson } from '../support/http.ts';
import { runOps } from '../support/ops-cli.ts';
import { waitForCounts } from '../support/ops-flow.ts';
import { validBody } from '../support/valid-bodies.ts';
import { eventually } from '../support/wait.ts';

// `ops replay --all` of a launch's failed jobs must not hold up the site's new leads: replayed jobs get a
// BullMQ priority, and BullMQ hands workers every job without one (fresh submissions) first. A replay of
// REPLAY_TEST_JOBS (3,000 by default: a minute of Airtable's 50 records/s) failed creator signups into
// the local Airtable server at its real rate; a contact submitted once the replay has queued them all (the
// worst moment) is in the CRM within 10 s of its ack, and every replayed job is delivered exactly once.
// Without the priority it waited behind the whole replay (checked: not in the CRM 30 s after its ack).
const JOBS = Number(process.env.REPLAY_TEST_JOBS ?? 3_000);
const BASE = `appReplay${Date.now().toString(36)}`;
const KEY = 'patReplayTest';
let server: FakeAirtable;
let worker: RunningWorker | undefined;
let gateway: RunningGateway;
let queue: Queue;
let env: Record<string, string>;

beforeAll(async () => {
  // The server's own limit out of the way: the worker's shared limiter (AIRTABLE_RATE_LIMIT) sets the pace.
  server = await startFakeAirtable({ apiKey: KEY, rateLimit: { requests: 1000, windowMs: 1_000, lockoutMs: 2_000 } });
  env = {
    ...airtableWorkerEnv(server, { apiKey: KEY, baseId: BASE, queueName: `replay-lane-${randomUUID()}` }),
    LOG_LEVEL: 'silent',
    OPS_ACTOR: 'replay-test',
  };
  // One client sends them all: the per-client limit is not what this test is about.
  gateway = await startGateway(gatewayConfig({ ...env, PORT: '0', HOST: '127.0.0.1', RATE_LIMIT_REQUESTS: '0' }));
  queue = new Queue(env.QUEUE_NAME!, { connection: { url: env.REDIS_URL } });
});

afterAll(async () => {
  await gateway?.stop();
  await worker?.stop();
  await queue?.obliterate({ force: true });
  await queue?.close();
  await server?.close();
});

const recordIdsIn = (table: string) => server.records(BASE, table).map((row) => String(row.fields['Record ID']));

it(`a contact submitted once a replay of ${JOBS} failed jobs is queued reaches the CRM within 10 s of its ack; each replayed job lands once`, async () => {
  // A launch whose every record Airtable refused (a renamed field): JOBS acknowledged, JOBS failed at once.
  server.faults.rejectRecord = () => ({ type: 'UNKNOWN_FIELD_NAME', message: 'Unknown field name: "Name"' });
  worker = await startWorker(workerConfig({ ...env, AIRTABLE_RATE_LIMIT: '200' }));
  const recordIds: string[] = [];
  for (let i = 0; i < JOBS; i += 50) {
    const answers = await Promise.all(
      Array.from({ length: Math.min(50, JOBS - i) }, (_, j) =>
        sendJson(`${gateway.url}/api/creator-signup`, validBody('creator-signup', `replay-${i + j}`)),
      ),
    );
    for (const answer of answers) {
      expect(answer.status).toBe(200);
      recordIds.push(answer.body.recordId);
    }
  }
  await waitForCounts(queue, { failed: JOBS }, 120_000);
  await worker.stop();
  server.faults.rejectRecord = undefined;
  expect(recordIdsIn('Creators')).toEqual([]);

  // A dry run changes nothing and is not an action: no audit entry.
  const dry = await runOps(['replay', '--all', '--dry-run', '--json'], env);
  expect(dry.code, dry.stderr).toBe(0);
  expect(dry.json.wouldReplay).toHaveLength(JOBS);
  expect(await queue.getJobCounts('failed', 'prioritized', 'waiting')).toEqual({
    failed: JOBS,
    prioritized: 0,
    waiting: 0,
  });

  // The fixed CRM at Airtable's real pace (AIRTABLE_RATE_LIMIT's default, 5 requests/s of 10 records, sent
  // at 4/s: airtableWorkerEnv's margin).
  worker = await startWorker(workerConfig(env));
  // The worst moment for a new lead: the replay has put every job back in the queue.
  const replayed = await runOps(['replay', '--all', '--json'], env, { timeoutMs: 120_000 });
  expect(replayed.code, replayed.stderr).toBe(0);
  expect(replayed.json).toMatchObject({ replayed: JOBS, skipped: 0, missing: 0, errors: 0 });
  const fresh = await sendJson(`${gateway.url}/api/contact`, validBody('contact', `fresh-${randomUUID()}`));
  const ackedAt = Date.now();
  expect(fresh.status).toBe(200);
  let replayedBefore = -1;
  await eventually(
    async () => {
      if (!recordIdsIn('Contacts').includes(fresh.body.recordId)) return false;
      replayedBefore = recordIdsIn('Creators').length;
      return true;
    },
    { timeoutMs: 30_000, everyMs: 50 },
  );
  const deliveredInMs = Date.now() - ackedAt;
  console.log(
    `fresh contact in the CRM ${deliveredInMs} ms after its ack, ahead of ${JOBS - replayedBefore} of ${JOBS} replayed jobs`,
  );
  expect(deliveredInMs).toBeLessThanOrEqual(10_000);
  expect(replayedBefore).toBeLessThan(JOBS);

  // The rest of the replay drains at the fast pace: what is left to prove is that each job lands once.
  await worker.stop();
  worker = await startWorker(workerConfig({ ...env, AIRTABLE_RATE_LIMIT: '200' }));
  await waitForCounts(queue, { failed: 0, completed: JOBS + 1 }, 240_000);
  const landed = recordIdsIn('Creators');
  expect(landed).toHaveLength(JOBS);
  expect(new Set(landed)).toEqual(new Set(recordIds));

  const audit = await runOps(['audit', '--json'], env);
  expect(audit.code, audit.stderr).toBe(0);
  expect(audit.json.actions).toHaveLength(1);
  expect(audit.json.actions[0]).toMatchObject({
    actor: 'replay-test',
    action: 'replay',
    filter: { all: true },
    count: JOBS,
    outcome: 'ok',
    changed: JOBS,
  });
}, 420_000);
