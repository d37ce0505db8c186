import { randomUUID } from 'node:crypto';
import { loadConfig as gatewayConfig, type RunningGateway, startGateway } from '@forms/gateway';
import { type RunningWorker, startWorker, loadConfig as workerConfig } from '@forms/worker';
import { Queue } from 'bullmq';
import { afterAll, beforeAll, expect, inject, it } from 'vitest';
import { type FakeAirtable, startFakeAirtable } from '../support/airtable-server.ts';
import { runOps } from '../support/ops-cli.ts';
import { failReplayAndCheck, sendSubmissions, waitForCounts } from '../support/ops-flow.ts';

// Launch day against Airtable: a renamed field (every record 422), then an outage (503) longer than the
// retry schedule. Each time ops see exactly the acknowledged submissions failed, fix the cause, replay
// with `ops replay --since`, and find each record once; a second replay changes nothing; purge empties.
const BASE = `appOps${Date.now().toString(36)}`;
const KEY = 'patOpsTest';
const TABLES = ['Contacts', 'Creators', 'Applications', 'Webinar Registrations'];
let server: FakeAirtable;
let worker: RunningWorker;
let gateway: RunningGateway;
let queue: Queue;
let env: Record<string, string>;
// Each `ops` run is a fresh Node process (about a second of CPU to load); on a busy 2-core machine a
// dozen of them take most of a minute.
const SLOW = 120_000;

beforeAll(async () => {
  server = await startFakeAirtable({ apiKey: KEY, rateLimit: { requests: 1000, windowMs: 1_000, lockoutMs: 2_000 } });
  env = {
    REDIS_URL: inject('redisUrl'),
    QUEUE_NAME: `ops-airtable-${randomUUID()}`,
    LOG_LEVEL: 'silent',
    AIRTABLE_API_KEY: KEY,
    AIRTABLE_BASE_ID: BASE,
    AIRTABLE_ENDPOINT_URL: server.url,
    AIRTABLE_RATE_LIMIT: '200',
    // The schedule is shortened, so the lease a failed request leaves on its record (twice this timeout,
    // in case the request still lands) must be too, or each retry waits out 30 s of lease. Not 250 ms: a CI
    // run beside the browser tests had jobs end failed with no Airtable status (their reasons were not
    // printed then; a request past 250 ms on a starved machine is the likeliest way). 1 s takes as long here.
    AIRTABLE_REQUEST_TIMEOUT_MS: '1000',
    // The 14-attempt schedule shortened to well under a second in all.
    RETRY_BASE_DELAY_MS: '5',
    RETRY_MAX_DELAY_MS: '40',
  };
  worker = await startWorker(workerConfig(env));
  gateway = await startGateway(gatewayConfig({ ...env, PORT: '0', HOST: '127.0.0.1' }));
  queue = new Queue(env.QUEUE_NAME!, { connection: { url: env.REDIS_URL } });
});

afterAll(async () => {
  await gateway?.stop();
  await worker?.stop();
  await queue?.obliterate({ force: true });
  await queue?.close();
  await server?.close();
});

/** recordId → records holding it, over every table (contacts merge on email, the rest on submission id). */
async function records(): Promise<Map<string, number>> {
  const held = new Map<string, number>();
  for (const table of TABLES)
    for (const row of server.records(BASE, table)) {
      const id = String(row.fields['Record ID']);
      held.set(id, (held.get(id) ?? 0) + 1);
    }
  return held;
}

it(
  'a field Airtable refuses (422): 200 failed at once, replayed after the fix, 200 records',
  async () => {
    const since = new Date().toISOString();
    server.faults.rejectRecord = () => ({ type: 'UNKNOWN_FIELD_NAME', message: 'Unknown field name: "Name"' });
    const recordIds = await sendSubmissions(gateway.url, 200, `ops422-${Date.now()}`);
    await failReplayAndCheck({
      env,
      queue,
      recordIds,
      since,
      expectCode: { status: 422, code: 'UNKNOWN_FIELD_NAME' },
      fix: () => {
        server.faults.rejectRecord = undefined;
      },
      records,
      completedBefore: 0,
    });
    expect([...(await records()).values()].reduce((a, b) => a + b, 0)).toBe(200);

    // The failed jobs were permanent: one attempt each, and `show` lists it with its time.
    const shown = await runOps(['show', recordIds[1]!, '--json'], env);
    expect(shown.json.submissions[0]).toMatchObject({ state: 'delivered', kind: 'creator-signup' });
    expect(shown.json.submissions[0].crmRecordId).toMatch(/^rec/);
  },
  SLOW,
);

it(
  'an outage (503) longer than the retry schedule: 200 failed after 14 attempts, replayed, 400 records',
  async () => {
    const since = new Date().toISOString();
    server.faults.serverErrorRate = 1;
    server.faults.serverErrorAfterWrite = 0;
    const recordIds = await sendSubmissions(gateway.url, 200, `ops503-${Date.now()}`);
    await waitForCounts(queue, { failed: 200 });

    const status = await runOps(['status', '--json'], env);
    expect(status.code, status.stderr).toBe(0);
    expect(status.json.counts).toMatchObject({ failed: 200, completed: 200, waiting: 0 });
    expect(status.json.crm).toMatchObject({ crm: 'airtable', baseId: BASE, paused: false });
    expect(status.json.crm.requestsLastMinute).toBeGreaterThan(0);
    expect(status.json.throughput.completedPerMinute).toBeGreaterThan(0);

    const contact = recordIds.find((id) => id.startsWith('con_'))!;
    const masked = await runOps(['show', contact, '--json'], env);
    const failedJob = masked.json.submissions[0];
    expect(failedJob).toMatchObject({ state: 'failed', attempts: 14, kind: 'contact' });
    expect(failedJob.errors).toHaveLength(14);
    expect(failedJob.errors[0]).toMatch(/^\d{4}-\d\d-\d\dT.* attempt 1: Airtable 503 SERVICE_UNAVAILABLE/);
    expect(failedJob.payload.email).toMatch(/^o\*\*\*@acme-contact\.io$/);
    const revealed = await runOps(['show', contact, '--json', '--reveal'], env);
    expect(revealed.json.submissions[0].payload.email).toMatch(/^ops503-.*@acme-contact\.io$/);

    await failReplayAndCheck({
      env,
      queue,
      recordIds,
      since,
      expectCode: { status: 503, code: 'SERVICE_UNAVAILABLE' },
      fix: () => {
        server.faults.serverErrorRate = 0;
      },
      records,
      completedBefore: 200,
    });
    const held = await records();
    expect([...held.values()].reduce((a, b) => a + b, 0)).toBe(400);
    expect([...held.values()].every((n) => n === 1)).toBe(true);
  },
  SLOW,
);

it(
  'purge asks before it removes (refuses without --yes off a terminal), then empties the failed set',
  async () => {
    server.faults.rejectRecord = () => ({ type: 'UNKNOWN_FIELD_NAME', message: 'Unknown field name: "Name"' });
    await sendSubmissions(gateway.url, 20, `opsPurge-${Date.now()}`);
    await waitForCounts(queue, { failed: 20 });

    const refused = await runOps(['purge', '--all'], env);
    expect(refused.code).toBe(2);
    expect(refused.stderr).toContain('--yes');
    expect(await queue.getFailedCount()).toBe(20);

    const dry = await runOps(['purge', '--all', '--dry-run', '--json'], env);
    expect(dry.json).toMatchObject({ dryRun: true, matched: 20, removed: 0 });

    const purged = await runOps(['purge', '--all', '--yes', '--json'], env);
    expect(purged.code, purged.stderr).toBe(0);
    expect(purged.json).toMatchObject({ matched: 20, removed: 20 });
    expect(await queue.getFailedCount()).toBe(0);
    expect((await runOps(['failed', '--json'], env)).json.count).toBe(0);
    server.faults.rejectRecord = undefined;
  },
  SLOW,
);
