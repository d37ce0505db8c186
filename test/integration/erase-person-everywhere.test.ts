import { randomBytes, randomUUID } from 'node:crypto';
import type { S3Client } from '@aws-sdk/client-s3';
import { loadConfig as gatewayConfig, type RunningGateway, startGateway } from '@forms/gateway';
import { type LocalRedis, startRedisServer, startTestS3, type TestS3 } from '@forms/local-services';
import {
  erasureKeys,
  erasureSubject,
  jobNameFor,
  opsKeys,
  recordIndexKey,
  submissionKeys,
  toJobPayload,
} from '@forms/schemas';
import { type RunningWorker, startWorker, loadConfig as workerConfig } from '@forms/worker';
import { Queue } from 'bullmq';
import { Redis } from 'ioredis';
import pg from 'pg';
import { pino } from 'pino';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type FakeAirtable, startFakeAirtable } from '../support/airtable-server.ts';
import { openTestDatabase, sharedPostgresUrl, type TestDatabase } from '../support/crm-database.ts';
import { inspectionClient, PDF_TYPE } from '../support/cv-files.ts';
import { runOps } from '../support/ops-cli.ts';
import { dumpBucket, dumpRedis, findBytes, pgDump } from '../support/store-dumps.ts';
import { eventually } from '../support/wait.ts';

// One person through contact (with an Idempotency-Key), careers with a CV, a contact update, the honeypot
// and a webinar; one job completed, one failed, one in flight against a slow CRM, one queued behind a
// paused queue; then erase. Afterwards no byte of the address (any case) or the phone is left in any Redis
// key or value, the CRM (pg_dump, or every record of the local Airtable server) or the bucket; a replay of
// everything writes nothing of theirs; a job accepted before the erase that turns up later is refused; a
// new submission afterwards is delivered. The dry run before it changes nothing (the same dumps).
// Against the Postgres CRM (dry run through the worker's admin route, erase through `ops erase`) and the
// Airtable CRM (dry run through `ops erase --dry-run`, erase through the route).

const postgresUrl = await sharedPostgresUrl();
const ADMIN_TOKEN = 'erase-test-admin-token-0123';
const ERASURE_KEY = randomBytes(32).toString('hex');
const AIRTABLE_KEY = 'patEraseTest';

type Crm = 'postgres' | 'airtable';

type Stores = {
  env: Record<string, string>;
  gateway: RunningGateway;
  worker: RunningWorker;
  queue: Queue;
  redis: Redis;
  s3: S3Client;
  bucket: string;
  /** Every personal byte the CRM holds, as a dump. */
  crmDump: () => Promise<string>;
  /** Makes the CRM refuse contact updates (so one fails for good), and takes it back. */
  refuseContactUpdates: (on: boolean) => Promise<void>;
  /** Makes the next CRM write hang until `release`. */
  slowNextWrite: () => Promise<{ release: () => Promise<void> }>;
  /**
   * Runs erase through `ops erase` (its own process, the worker's configuration) or the worker's admin route.
   * Each case takes the dry run through one and the erase through the other, so both reach both CRMs.
   */
  erase: (email: string, dryRun: boolean, via: 'cli' | 'route') => Promise<{ status: number; report: any }>;
  stop: () => Promise<void>;
};

let s3Server: TestS3;
// A Redis of its own: "no byte of the address in any key" is checked over every key, and the tier's shared
// Redis holds other files' queues, written while these run beside them.
let redisServer: LocalRedis;
let redisUrl: string;
beforeAll(async () => {
  s3Server = await startTestS3();
  redisServer = await startRedisServer();
  redisUrl = redisServer.url;
});
afterAll(async () => {
  await s3Server?.stop();
  await redisServer?.stop();
});

async function startStores(crm: Crm): Promise<Stores> {
  const bucket = `erase-${randomUUID().slice(0, 8)}`;
  const queueName = `erase-${crm}-${randomUUID()}`;
  const base = `appErase${Date.now().toString(36)}`;
  let database: TestDatabase | undefined;
  let airtable: FakeAirtable | undefined;
  const env: Record<string, string> = {
    REDIS_URL: redisUrl,
    QUEUE_NAME: queueName,
    LOG_LEVEL: 'silent',
    ERASURE_KEY,
    ADMIN_TOKEN,
    METRICS_PORT: '0',
    METRICS_HOST: '127.0.0.1',
    RETRY_BASE_DELAY_MS: '5',
    RETRY_MAX_DELAY_MS: '40',
    // No stalled check and no lock renewal while the dumps are compared (both write to Redis).
    WORKER_LOCK_DURATION_MS: '300000',
    DATABASE_QUERY_TIMEOUT_MS: '60000',
    ...s3Server.env(bucket),
  };
  if (crm === 'postgres') {
    database = await openTestDatabase({ adminUrl: postgresUrl });
    Object.assign(env, database.workerEnv);
  } else {
    airtable = await startFakeAirtable({ apiKey: AIRTABLE_KEY, attachmentFields: { Applications: ['CV'] } });
    Object.assign(env, {
      AIRTABLE_API_KEY: AIRTABLE_KEY,
      AIRTABLE_BASE_ID: base,
      AIRTABLE_ENDPOINT_URL: airtable.url,
      AIRTABLE_RATE_LIMIT: '20',
      AIRTABLE_REQUEST_TIMEOUT_MS: '60000',
    });
  }
  const worker = await startWorker(workerConfig(env), pino({ level: 'silent' }));
  const gateway = await startGateway(gatewayConfig({ ...env, PORT: '0', HOST: '127.0.0.1' }));
  const redis = new Redis(redisUrl);
  const queue = new Queue(queueName, { connection: { url: redisUrl } });
  const s3 = inspectionClient(s3Server.env(bucket));
  let lock: pg.Client | undefined;
  return {
    env,
    gateway,
    worker,
    queue,
    redis,
    s3,
    bucket,
    async crmDump() {
      if (database) return pgDump(env.DATABASE_URL!);
      // Tables with records only: the local server makes a table on its first request, even a read.
      const tables = airtable!.tables(base).filter((t) => airtable!.records(base, t).length > 0);
      return JSON.stringify(tables.map((t) => [t, airtable!.records(base, t)]));
    },
    async refuseContactUpdates(on) {
      if (database) {
        const db = await database.read();
        await db.exec(
          on
            ? "ALTER TABLE submissions ADD CONSTRAINT erase_test_refuse CHECK (kind <> 'contact-update') NOT VALID"
            : 'ALTER TABLE submissions DROP CONSTRAINT erase_test_refuse',
        );
      } else {
        airtable!.faults.rejectRecord = on
          ? (_table, fields) =>
              fields.Form === 'contact-update' ? { type: 'INVALID_VALUE_FOR_COLUMN', message: 'refused' } : undefined
          : undefined;
      }
    },
    async slowNextWrite() {
      if (database) {
        // A second session holds a lock that lets reads (and pg_dump) through but makes inserts wait.
        lock = new pg.Client({ connectionString: env.DATABASE_URL });
        await lock.connect();
        await lock.query('BEGIN');
        await lock.query('LOCK TABLE submissions IN SHARE MODE');
        const held = lock;
        return {
          release: async () => {
            await held.query('COMMIT');
            await held.end();
            lock = undefined;
          },
        };
      }
      // The local Airtable server holds the next write this long, then applies it.
      airtable!.faults.hangMs = 12_000;
      airtable!.faults.script.push('hang');
      return { release: async () => {} };
    },
    async erase(email, dryRun, via) {
      if (via === 'cli') {
        const args = ['erase', '--email', email, '--json', ...(dryRun ? ['--dry-run'] : ['--yes'])];
        const run = await runOps(args, env, { timeoutMs: 90_000 });
        return { status: run.code ?? -1, report: run.json };
      }
      const url = worker.metricsUrl!.replace('/admin/metrics', '/admin/erase');
      const res = await fetch(url, {
        method: 'POST',
        headers: { authorization: `Bearer ${ADMIN_TOKEN}`, 'content-type': 'application/json' },
        body: JSON.stringify({ email, dryRun }),
        signal: AbortSignal.timeout(90_000),
      });
      return { status: res.status === 200 ? 0 : res.status, report: await res.json() };
    },
    async stop() {
      await lock?.end().catch(() => {}); // a failed run may leave the CRM locked: the worker would wait on it
      await gateway.stop();
      await worker.stop();
      await queue.obliterate({ force: true }).catch(() => {});
      await queue.close();
      redis.disconnect();
      s3.destroy();
      await database?.close();
      await airtable?.close();
    },
  };
}

async function post(stores: Stores, path: string, body: object, { method = 'POST', key = '' } = {}) {
  const res = await fetch(`${stores.gateway.url}${path}`, {
    method,
    headers: { 'content-type': 'application/json', ...(key ? { 'idempotency-key': key } : {}) },
    body: JSON.stringify(body),
  });
  const answer = (await res.json()) as Record<string, unknown>;
  expect(res.status, JSON.stringify(answer)).toBe(200);
  return answer;
}

/** Polls a job's state until it is `state` (bounded). */
async function stateIs(queue: Queue, id: string, state: string, timeoutMs = 20_000) {
  await eventually(async () => (await queue.getJobState(id)) === state, { timeoutMs });
}

/** Every store, dumped: Redis (every key), the CRM, the bucket. */
async function dumpAll(stores: Stores) {
  return {
    redis: await dumpRedis(stores.redis),
    crm: await stores.crmDump(),
    bucket: await dumpBucket(stores.s3, stores.bucket),
  };
}

/** A PDF whose bytes hold the address and the phone, as a real CV's do. */
function cvHolding(email: string, phone: string): Buffer {
  return Buffer.from(
    `%PDF-1.4\n1 0 obj<< /Type /Catalog >>endobj\n% ${email} ${phone}\ntrailer<< /Root 1 0 R >>\n%%EOF\n`,
  );
}

describe.each([
  ['postgres', !postgresUrl],
  ['airtable', false],
] as const)('erase one person everywhere (%s CRM)', (crm, skip) => {
  let stores: Stores;
  beforeAll(async () => {
    if (!skip) stores = await startStores(crm);
  });
  afterAll(async () => {
    await stores?.stop();
  });

  it.skipIf(skip)(
    'removes every byte of their address and phone from Redis, the CRM and the bucket; nothing brings them back',
    async () => {
      const tag = randomBytes(5).toString('hex');
      const email = `Erase.${tag}@Acme-Privacy.io`; // sent mixed-case: the gateway lower-cases it once
      const phone = `+4477009${String(Math.floor(Math.random() * 1e6)).padStart(6, '0')}`;
      const keep = `keep.${tag}@acme-privacy.io`;
      const needles = [email, phone, phone.slice(1)];
      const { queue } = stores;

      // Completed: a contact (with an Idempotency-Key) and an application with a CV.
      const contact = await post(
        stores,
        '/api/contact',
        { email, name: 'Ada Erase', phoneNumber: phone },
        { key: `k-${tag}` },
      );
      const careers = await post(stores, '/api/careers-apply', {
        name: 'Ada Erase',
        email,
        role: 'Engineer',
        cvFile: { filename: 'Ada CV.pdf', contentType: PDF_TYPE, data: cvHolding(email, phone).toString('base64') },
      });
      expect(careers.cvUploadFailed).toBe(false);
      const careersId = String(careers.recordId);
      await stateIs(queue, careersId, 'completed');

      // Failed for good: a contact update the CRM refuses (and a bystander's, which replay will deliver).
      await stores.refuseContactUpdates(true);
      await post(stores, '/api/contact-update', { email, phoneNumber: phone, message: 'call me' }, { method: 'PATCH' });
      await post(stores, '/api/contact-update', { email: keep, message: 'keep me' }, { method: 'PATCH' });
      await eventually(async () => (await queue.getJobCounts('failed')).failed === 2, { timeoutMs: 20_000 });
      await stores.refuseContactUpdates(false);
      const contactJobs = (await queue.getJobs(['completed'])).filter((j) => j.data.kind === 'contact');
      expect(contactJobs).toHaveLength(1);

      // Quarantined: the honeypot filled.
      await post(stores, '/api/contact', { email, phoneNumber: phone, website: 'https://spam.example' });
      const quarantine = opsKeys({ prefix: 'bull' }, stores.env.QUEUE_NAME!);
      expect(await stores.redis.hlen(quarantine.spamData)).toBe(1);
      expect(await stores.redis.hlen(quarantine.spamReasons)).toBe(1);

      // In flight: a webinar registration whose CRM write hangs.
      const slow = await stores.slowNextWrite();
      const webinar = await post(stores, '/api/partner-webinar', { workEmail: email, fullName: 'Ada Erase' });
      const webinarId = String(webinar.recordId);
      await stateIs(queue, webinarId, 'active');
      // Judged (the worker's first step: its verdict replaces the judge inputs), so at its CRM write.
      await eventually(async () => (await queue.getJob(webinarId))?.data.judgement !== undefined);

      // Queued behind a paused queue: a signup.
      await queue.pause();
      await post(stores, '/api/cpa-signup', { email, phoneNumber: phone });

      // The search sees them before: a search that could find nothing would prove nothing.
      const before = await dumpAll(stores);
      expect(findBytes({ redis: before.redis }, needles).length).toBeGreaterThan(0);
      expect(findBytes({ crm: before.crm }, [email]).length).toBeGreaterThan(0);
      expect(findBytes({ bucket: before.bucket }, needles).length).toBeGreaterThan(0);
      const contactIndex = submissionKeys({ prefix: 'bull' }, stores.env.QUEUE_NAME!).contact(email.toLowerCase());
      expect(await stores.redis.get(contactIndex)).toBe(contact.recordId);
      expect(
        await stores.redis.exists(submissionKeys({ prefix: 'bull' }, stores.env.QUEUE_NAME!).idempotency(`k-${tag}`)),
      ).toBe(1);

      // Dry run: counts by store, and every dump equal after it. The Airtable case's own reads take slots
      // from the base's shared rate limiter (keys `airtable:{<base>}:…`, counts and times, no data), and the
      // worker's request in flight holds its record's lease (`…:airtable:lease:<h>`, a token that comes and
      // goes with that request's timeout): those keys are left out of the comparison, and so are the keys of
      // the other case's queue, which ran earlier on this Redis (its `stalled-check` expires on its own timer).
      const dry = await stores.erase(email, true, crm === 'postgres' ? 'route' : 'cli');
      expect(dry.status).toBe(0);
      expect(dry.report).toMatchObject({
        dryRun: true,
        jobs: { completed: 2, failed: 1, active: 1, waiting: 1 },
        quarantine: 1,
        idempotencyRecords: 1,
        indexKeys: 2, // the contact index entry, and the recordId → submissions index
        cvObjects: 1,
        stillActive: [],
      });
      expect(dry.report.crmRecords).toBeGreaterThanOrEqual(2);
      const afterDry = await dumpAll(stores);
      const changed = [...new Set([...before.redis.keys(), ...afterDry.redis.keys()])].filter(
        (key) =>
          !key.startsWith('airtable:{') &&
          !key.includes(':airtable:lease:') &&
          (key.includes(stores.env.QUEUE_NAME!) || !key.startsWith('bull:erase-')) &&
          before.redis.get(key) !== afterDry.redis.get(key),
      );
      expect(changed).toEqual([]);
      expect(afterDry.crm).toBe(before.crm);
      expect(afterDry.bucket).toEqual(before.bucket);

      // Erase, with the webinar still in flight: release the CRM once the tombstone is down.
      const erasing = stores.erase(email, false, crm === 'postgres' ? 'cli' : 'route');
      const tombstone = erasureKeys({ prefix: 'bull' }, stores.env.QUEUE_NAME!).tombstone(
        erasureSubject(ERASURE_KEY, email),
      );
      await eventually(async () => (await stores.redis.exists(tombstone)) === 1, { timeoutMs: 30_000 });
      expect(await queue.getJobState(webinarId)).toBe('active');
      await slow.release();
      const erased = await erasing;
      expect(erased.status).toBe(0);
      expect(erased.report).toMatchObject({
        dryRun: false,
        jobs: { completed: 2, failed: 1, active: 1, waiting: 1 },
        quarantine: 1,
        idempotencyRecords: 1,
        indexKeys: 2,
        cvObjects: 1,
        stillActive: [],
      });
      // The webinar's write landed while erase waited, and went with the rest.
      expect(erased.report.crmRecords).toBe(dry.report.crmRecords + 1);

      const after = await dumpAll(stores);
      expect(findBytes(after, needles)).toEqual([]);
      // Keys that hold only ids or hashes, no byte of the address, must go too.
      const idempotency = submissionKeys({ prefix: 'bull' }, stores.env.QUEUE_NAME!).idempotency(`k-${tag}`);
      const recordIndex = recordIndexKey(stores.env.QUEUE_NAME!, String(contact.recordId));
      expect(await stores.redis.exists(contactIndex, idempotency, recordIndex)).toBe(0);
      expect(await stores.redis.hlen(quarantine.spamData)).toBe(0);
      expect(await stores.redis.hlen(quarantine.spamReasons)).toBe(0);

      // The audit trail names the erase by the keyed hash only.
      const audit = await runOps(['audit', '--json'], stores.env);
      const entry = audit.json.actions.find((a: { action: string }) => a.action === 'erase');
      expect(entry).toMatchObject({ filter: { subject: erasureSubject(ERASURE_KEY, email) }, outcome: 'ok' });

      // Replay everything: the bystander's update is delivered, nothing of the person's comes back.
      await queue.resume();
      const replay = await runOps(['replay', '--all', '--json'], stores.env);
      expect(replay.json).toMatchObject({ replayed: 1, errors: 0 });
      await eventually(async () => (await stores.crmDump()).includes(keep), { timeoutMs: 20_000 });
      await eventually(async () => (await queue.getJobCounts('prioritized', 'waiting', 'active')).active === 0);
      expect(findBytes(await dumpAll(stores), needles)).toEqual([]);

      // A job for the address accepted before the erase that turns up now (a gateway's add racing the
      // erase, a stalled job): the worker refuses it before any CRM driver and keeps nothing of it.
      const lateId = `sub_late${tag}`;
      const late = toJobPayload(
        'contact',
        { email: email.toLowerCase(), phoneNumber: phone },
        {
          submissionId: lateId,
          recordId: String(contact.recordId),
          acceptedAt: new Date(Date.now() - 60_000).toISOString(),
        },
      );
      await queue.add(jobNameFor('contact'), late, { jobId: lateId });
      await stateIs(queue, lateId, 'completed');
      const lateJob = await queue.getJob(lateId);
      expect(lateJob?.returnvalue).toEqual({ erased: true });
      expect(findBytes(await dumpAll(stores), needles)).toEqual([]);

      // A new submission after the erase is a new, consented contact: delivered as usual.
      await post(stores, '/api/contact', { email, name: 'Ada Again' });
      await eventually(async () => (await stores.crmDump()).toLowerCase().includes(email.toLowerCase()), {
        timeoutMs: 20_000,
      });
    },
    180_000,
  );
});
