import { randomUUID } from 'node:crypto';
import { HeadObjectCommand, ListObjectsV2Command, PutObjectCommand, type S3Client } from '@aws-sdk/client-s3';
import { startTestS3, type TestS3 } from '@forms/local-services';
import { createObjectStorage } from '@forms/object-storage';
import {
  CV_RETENTION_EVERY_MS,
  CV_RETENTION_SCHEDULER,
  createPostgresCrm,
  expireCvs,
  maintenanceQueueName,
  loadConfig as workerConfig,
} from '@forms/worker';
import { Queue } from 'bullmq';
import { afterAll, beforeAll, expect, inject, it } from 'vitest';
import { careersBody, inspectionClient, PDF_TYPE, samplePdf } from '../support/cv-files.ts';
import { sendJson } from '../support/http.ts';
import { type Pipeline, startPipeline } from '../support/pipeline.ts';
import { eventually } from '../support/wait.ts';

// CV retention with an injected clock: CVs are made in two groups a measured gap apart, then the sweep
// runs "CV_RETENTION_DAYS later" than a point inside that gap. Nothing waits 180 days.
const bucket = `cv-ret-${randomUUID().slice(0, 8)}`;
const DAY_MS = 86_400_000;
let s3: TestS3;
let pipeline: Pipeline;
let client: S3Client;

beforeAll(async () => {
  s3 = await startTestS3();
  pipeline = await startPipeline(s3.env(bucket));
  client = inspectionClient(s3.env(bucket));
});
afterAll(async () => {
  await pipeline?.stop();
  client?.destroy();
  await s3?.stop();
});

async function apply(): Promise<string> {
  const res = await sendJson(
    `${pipeline.gateway.url}/api/careers-apply`,
    careersBody(randomUUID(), samplePdf(), PDF_TYPE),
  );
  expect(res.status).toBe(200);
  const id = res.body.recordId as string;
  await eventually(async () => (await cvKeyOf(id)) === `cv/${id}.pdf`);
  return id;
}

async function cvKeyOf(id: string): Promise<string | null | undefined> {
  const { rows } = await pipeline.db.query<{ cv_key: string | null }>('SELECT cv_key FROM submissions WHERE id = $1', [
    id,
  ]);
  return rows[0]?.cv_key;
}

async function lastModified(key: string): Promise<number> {
  const head = await client.send(new HeadObjectCommand({ Bucket: bucket, Key: key }));
  return head.LastModified!.getTime();
}

/** A staged CV the worker never took (the enqueue failed after staging): retention must sweep it too. */
async function orphanStaged(): Promise<string> {
  const key = `incoming/cv/sub_orphan${randomUUID().replace(/-/g, '')}.pdf`;
  await client.send(new PutObjectCommand({ Bucket: bucket, Key: key, Body: samplePdf(), ContentType: PDF_TYPE }));
  return key;
}

async function allKeys(): Promise<string[]> {
  const listed = await client.send(new ListObjectsV2Command({ Bucket: bucket }));
  return (listed.Contents ?? []).map((o) => o.Key!).sort();
}

it('deletes exactly the CVs past CV_RETENTION_DAYS (final and staged) and clears their CRM link; none younger', async () => {
  const old = [await apply(), await apply(), await apply()];
  const oldOrphan = await orphanStaged();
  const oldKeys = [...old.map((id) => `cv/${id}.pdf`), oldOrphan];
  // The newest time S3 gives an old CV. Then a gap of 2 s of real time (polled, bounded), so even a server
  // that reports whole seconds puts every young CV more than 1 s after it.
  const oldNewest = Math.max(...(await Promise.all(oldKeys.map(lastModified))));
  await eventually(async () => Date.now() > oldNewest + 2_000, { timeoutMs: 5_000, everyMs: 100 });
  const young = [await apply(), await apply()];
  const youngOrphan = await orphanStaged();
  const youngKeys = [...young.map((id) => `cv/${id}.pdf`), youngOrphan];
  expect(await allKeys()).toEqual([...oldKeys, ...youngKeys].sort());

  const config = workerConfig(pipeline.env);
  expect(config.cvRetentionDays).toBe(180); // the default
  const storage = createObjectStorage({ ...config.storage!, createBucket: false }, { maxAttempts: 1 });
  try {
    // "Now" is 180 days after a point half a second past the newest old CV: old ones are past their age,
    // young ones (over a second later) are not.
    const now = oldNewest + 500 + config.cvRetentionDays * DAY_MS;
    const result = await expireCvs({
      storage,
      crm: createPostgresCrm(pipeline.db),
      retentionDays: config.cvRetentionDays,
      now,
    });
    expect(result.deleted.sort()).toEqual(oldKeys.sort());
    expect(result.linksCleared).toBe(3);
    expect(await allKeys()).toEqual(youngKeys.sort());
    for (const id of old) expect(await cvKeyOf(id)).toBeNull();
    for (const id of young) expect(await cvKeyOf(id)).toBe(`cv/${id}.pdf`);
    const { rows } = await pipeline.db.query<{ staged: unknown }>(
      "SELECT payload -> 'stagedCv' AS staged FROM submissions WHERE id = ANY($1::text[])",
      [old],
    );
    expect(rows.map((r) => r.staged)).toEqual([null, null, null]);

    // A second sweep at the same time finds nothing more.
    const again = await expireCvs({ storage, crm: createPostgresCrm(pipeline.db), retentionDays: 180, now });
    expect(again).toEqual({ deleted: [], linksCleared: 0 });
  } finally {
    storage.close();
  }
}, 60_000);

it('the worker registers the sweep with BullMQ job scheduler, every 6 hours, on its own queue', async () => {
  const queue = new Queue(maintenanceQueueName(pipeline.env.QUEUE_NAME!), { connection: { url: inject('redisUrl') } });
  try {
    const schedulers = await queue.getJobSchedulers();
    expect(schedulers.map((s) => ({ key: s.key, every: Number(s.every) }))).toEqual([
      { key: CV_RETENTION_SCHEDULER, every: CV_RETENTION_EVERY_MS },
    ]);
  } finally {
    await queue.obliterate({ force: true }).catch(() => {});
    await queue.close();
  }
});
