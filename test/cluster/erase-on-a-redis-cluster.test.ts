import { randomBytes } from 'node:crypto';
import type { S3Client } from '@aws-sdk/client-s3';
import { type LocalRedisCluster, startRedisCluster, startTestS3, type TestS3 } from '@forms/local-services';
import { HONEYPOT_FIELD } from '@forms/schemas';
import { Redis } from 'ioredis';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { inspectionClient, PDF_TYPE } from '../support/cv-files.ts';
import { type Pipeline, startPipeline } from '../support/pipeline.ts';
import { dumpBucket, dumpRedis, findBytes } from '../support/store-dumps.ts';
import { eventually } from '../support/wait.ts';

// Erase had never run on a Redis Cluster, where the queue's keys share one slot but the idempotency
// records, the contact index and the recordId index do not. On a 3-master cluster: a contact (with an
// Idempotency-Key), an application with a CV and a honeypot hit, then the worker's erase route: the dry run
// counts every store and changes nothing, the erase leaves no byte of the address or the phone on any
// node, in the CRM or in the bucket.
const TOKEN = 'admin-token-for-cluster-erase-0123';
const tag = randomBytes(4).toString('hex');
const email = `ada.${tag}@cluster-erase.io`;
const phone = `+4477009${String(Math.floor(Math.random() * 1e6)).padStart(6, '0')}`;
const NEEDLES = [email, phone, phone.slice(1), `Ada Cluster ${tag}`];
let cluster: LocalRedisCluster;
let s3Server: TestS3;
let s3: S3Client;
let pipeline: Pipeline;
const bucket = `cluster-erase-${tag}`;

beforeAll(async () => {
  cluster = await startRedisCluster({ masters: 3, replicasPerMaster: 0 });
  s3Server = await startTestS3();
  s3 = inspectionClient(s3Server.env(bucket));
  pipeline = await startPipeline({
    REDIS_CLUSTER_NODES: cluster.seeds,
    ADMIN_TOKEN: TOKEN,
    ERASURE_KEY: randomBytes(32).toString('hex'),
    METRICS_PORT: '0',
    METRICS_HOST: '127.0.0.1',
    ...s3Server.env(bucket),
  });
}, 90_000);
afterAll(async () => {
  await pipeline?.stop();
  s3?.destroy();
  await s3Server?.stop();
  await cluster?.stop();
}, 60_000);

/** Every key of every node (all masters here), the CRM's rows, and the bucket. */
async function dumpAll() {
  const redis = new Map<string, string>();
  for (const port of cluster.ports) {
    const node = new Redis(port, '127.0.0.1');
    try {
      for (const [key, value] of await dumpRedis(node)) redis.set(`${port} ${key}`, value);
    } finally {
      node.disconnect();
    }
  }
  const { rows } = await pipeline.db.query<{ t: unknown }>(
    `SELECT json_build_object('contacts', (SELECT json_agg(c) FROM contacts c),
                              'submissions', (SELECT json_agg(s) FROM submissions s)) AS t`,
  );
  return { redis, crm: JSON.stringify(rows[0]!.t), bucket: await dumpBucket(s3, bucket) };
}

async function post(path: string, body: object, key?: string) {
  const res = await fetch(`${pipeline.gateway.url}${path}`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', ...(key ? { 'idempotency-key': key } : {}) },
    body: JSON.stringify(body),
  });
  expect(res.status).toBe(200);
  return (await res.json()) as { recordId: string; cvUploadFailed?: boolean };
}

async function erase(dryRun: boolean) {
  const res = await fetch(pipeline.worker!.metricsUrl!.replace('/admin/metrics', '/admin/erase'), {
    method: 'POST',
    headers: { authorization: `Bearer ${TOKEN}`, 'content-type': 'application/json' },
    body: JSON.stringify({ email, dryRun }),
  });
  return { status: res.status, report: await res.json() };
}

it('erases one person from every node, the CRM and the bucket; the dry run changes nothing', async () => {
  const name = `Ada Cluster ${tag}`;
  await post('/api/contact', { email, name, phoneNumber: phone }, `k-${tag}`);
  const cv = Buffer.from(`%PDF-1.4\n% ${email} ${phone}\n%%EOF\n`).toString('base64');
  const careers = await post('/api/careers-apply', {
    name,
    email,
    role: 'Engineer',
    cvFile: { filename: `${name} CV.pdf`, contentType: PDF_TYPE, data: cv },
  });
  expect(careers.cvUploadFailed).toBe(false);
  await post('/api/contact', { email, phoneNumber: phone, [HONEYPOT_FIELD]: 'https://spam.example' });
  await eventually(async () => (await pipeline.queue.getJobCounts('completed')).completed === 2, { timeoutMs: 20_000 });

  const before = await dumpAll();
  for (const store of ['redis', 'crm', 'bucket'] as const)
    expect(findBytes({ [store]: before[store] }, NEEDLES).length, store).toBeGreaterThan(0);

  const dry = await erase(true);
  expect(dry.status, JSON.stringify(dry.report)).toBe(200);
  expect(dry.report).toMatchObject({
    jobs: { completed: 2 },
    quarantine: 1,
    idempotencyRecords: 1,
    indexKeys: 2,
    crmRecords: 3,
    cvObjects: 1,
  });
  const afterDry = await dumpAll();
  expect([...afterDry.redis]).toEqual([...before.redis]);
  expect(afterDry.crm).toBe(before.crm);
  expect([...afterDry.bucket]).toEqual([...before.bucket]);

  const done = await erase(false);
  expect(done.status, JSON.stringify(done.report)).toBe(200);
  expect(done.report).toMatchObject({ ...dry.report, dryRun: false, stillActive: [] });
  expect(findBytes(await dumpAll(), NEEDLES)).toEqual([]);
});
