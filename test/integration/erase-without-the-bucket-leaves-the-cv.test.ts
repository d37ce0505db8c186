import { randomBytes, randomUUID } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { S3Client } from '@aws-sdk/client-s3';
import { loadConfig as gatewayConfig, startGateway } from '@forms/gateway';
import { type LocalRedis, startRedisServer, startTestS3, type TestS3 } from '@forms/local-services';
import { openPglite, startWorker, loadConfig as workerConfig } from '@forms/worker';
import { Queue } from 'bullmq';
import { Redis } from 'ioredis';
import { pino } from 'pino';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { inspectionClient, PDF_TYPE } from '../support/cv-files.ts';
import { runOps } from '../support/ops-cli.ts';
import { dumpBucket, dumpRedis, findBytes } from '../support/store-dumps.ts';
import { eventually } from '../support/wait.ts';

// `ops erase`, run where the worker's bucket variables were not set (beside a `pnpm start`, whose local S3
// it could not see), printed `CV objects 0` and exited 0; the CV and its metadata (the person's file name)
// stayed in the bucket, though the CRM row it had just deleted named the object's key. Now: without the
// bucket it refuses (exit 1, naming S3_BUCKET) and changes nothing in Redis, the CRM or the bucket; a CRM
// that fails half-way is reported by store (exit 1) and the same erase run again finishes; with every
// setting it leaves no byte of the person anywhere. The CRM is the embedded PGlite the CLI opens itself
// (the worker stopped first, as the privacy guide says).

const ERASURE_KEY = randomBytes(32).toString('hex');
const tag = randomBytes(4).toString('hex');
const email = `grace.${tag}@navy-erase.io`;
const phone = `+4477009${String(Math.floor(Math.random() * 1e6)).padStart(6, '0')}`;
const filename = `Grace Hopper ${tag} CV.pdf`;
const NEEDLES = [email, phone, phone.slice(1), `Grace Hopper ${tag}`];

let s3Server: TestS3;
let redisServer: LocalRedis;
let redis: Redis;
let s3: S3Client;
let dataDir: string;
let env: Record<string, string>;
let bucketEnv: Record<string, string>;

/** Every row of the CRM as text (the CLI opens the same PGlite folder, so this one is closed after). */
async function crmDump(sql?: string): Promise<string> {
  const db = await openPglite(join(dataDir, 'pglite'));
  try {
    if (sql) await db.exec(sql);
    const { rows } = await db.query<{ t: unknown }>(
      `SELECT json_build_object('contacts', (SELECT json_agg(c) FROM contacts c),
                                'submissions', (SELECT json_agg(s) FROM submissions s)) AS t`,
    );
    return JSON.stringify(rows[0]!.t);
  } finally {
    await db.close();
  }
}

async function dumpAll() {
  return { redis: await dumpRedis(redis), crm: await crmDump(), bucket: await dumpBucket(s3, bucketEnv.S3_BUCKET!) };
}

beforeAll(async () => {
  s3Server = await startTestS3();
  redisServer = await startRedisServer();
  redis = new Redis(redisServer.url);
  dataDir = mkdtempSync(join(tmpdir(), 'forms-erase-bucket-'));
  bucketEnv = s3Server.env(`erase-${tag}`);
  s3 = inspectionClient(bucketEnv);
  env = {
    REDIS_URL: redisServer.url,
    QUEUE_NAME: `erase-bucket-${randomUUID()}`,
    LOG_LEVEL: 'silent',
    ERASURE_KEY,
    DATA_DIR: dataDir,
  };
  // A contact and an application with a CV, delivered; then the worker stops (PGlite takes one opener).
  const worker = await startWorker(workerConfig({ ...env, ...bucketEnv }), pino({ level: 'silent' }));
  const gateway = await startGateway(gatewayConfig({ ...env, ...bucketEnv, PORT: '0', HOST: '127.0.0.1' }));
  const queue = new Queue(env.QUEUE_NAME!, { connection: { url: redisServer.url } });
  try {
    const send = async (path: string, body: object) => {
      const res = await fetch(`${gateway.url}${path}`, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify(body),
      });
      expect(res.status).toBe(200);
      return (await res.json()) as { recordId: string; cvUploadFailed?: boolean };
    };
    await send('/api/contact', { email, name: 'Grace Hopper', phoneNumber: phone });
    const cv = Buffer.from(`%PDF-1.4\n% ${email} ${phone}\n%%EOF\n`).toString('base64');
    const careers = await send('/api/careers-apply', {
      name: `Grace Hopper ${tag}`,
      email,
      role: 'Engineer',
      cvFile: { filename, contentType: PDF_TYPE, data: cv },
    });
    expect(careers.cvUploadFailed).toBe(false);
    await eventually(async () => (await queue.getJobCounts('completed')).completed === 2, { timeoutMs: 20_000 });
  } finally {
    await queue.close();
    await gateway.stop();
    await worker.stop();
  }
}, 90_000);

afterAll(async () => {
  redis?.disconnect();
  s3?.destroy();
  await redisServer?.stop();
  await s3Server?.stop();
  if (dataDir) rmSync(dataDir, { recursive: true, force: true });
});

it('without the bucket setting: exit 1 naming it, nothing changed; half-way: by store, exit 1; then all gone', async () => {
  const before = await dumpAll();
  expect(findBytes({ bucket: before.bucket }, NEEDLES).length).toBeGreaterThan(0);
  expect(findBytes({ crm: before.crm }, NEEDLES).length).toBeGreaterThan(0);
  expect(findBytes({ redis: before.redis }, NEEDLES).length).toBeGreaterThan(0);

  // The worker's env less its bucket: refused before anything changes.
  const refused = await runOps(['erase', '--email', email, '--yes'], env, { timeoutMs: 60_000 });
  expect(refused.code, refused.stderr).toBe(1);
  expect(refused.stderr).toContain('S3_BUCKET');
  expect(refused.stdout).not.toContain('CV objects');
  const afterRefusal = await dumpAll();
  expect([...afterRefusal.redis]).toEqual([...before.redis]);
  expect(afterRefusal.crm).toBe(before.crm);
  expect([...afterRefusal.bucket]).toEqual([...before.bucket]);

  // With the bucket, but a CRM that refuses deletes: the bucket is erased, the CRM is reported failed.
  await crmDump(`CREATE FUNCTION refuse() RETURNS trigger LANGUAGE plpgsql AS $$ BEGIN RAISE EXCEPTION 'refused'; END $$;
                 CREATE TRIGGER refuse BEFORE DELETE ON submissions FOR EACH ROW EXECUTE FUNCTION refuse();`);
  const halfway = await runOps(['erase', '--email', email, '--yes'], { ...env, ...bucketEnv }, { timeoutMs: 60_000 });
  expect(halfway.code, halfway.stderr).toBe(1);
  expect(halfway.stderr).toMatch(/bucket: erased \(1 objects\); CRM: failed \(.*refused\); Redis: tombstone only/);
  expect(halfway.stderr).not.toContain(email);
  await crmDump('DROP TRIGGER refuse ON submissions; DROP FUNCTION refuse();');

  // The same erase again finishes: no byte of the person in Redis, the CRM or the bucket.
  const done = await runOps(['erase', '--email', email, '--yes', '--json'], { ...env, ...bucketEnv });
  expect(done.code, done.stderr).toBe(0);
  expect(done.json).toMatchObject({ jobs: { completed: 2 }, crmRecords: 3, cvObjects: 0, stillActive: [] });
  expect(findBytes(await dumpAll(), NEEDLES)).toEqual([]);
}, 120_000);
