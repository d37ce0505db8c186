import { randomUUID } from 'node:crypto';
import { ListObjectsV2Command } from '@aws-sdk/client-s3';
import { startTestS3, type TestS3 } from '@forms/local-services';
import { createObjectStorage, type ObjectStorage, storageSettings } from '@forms/object-storage';
import { CV_DATA_MAX_LENGTH, CV_MAX_BYTES, ERROR_CODES, type ErrorCode } from '@forms/schemas';
import { Queue } from 'bullmq';
import { Redis } from 'ioredis';
import { afterAll, beforeAll, beforeEach, describe, expect, inject, it } from 'vitest';
import { loadConfig } from '../../config.ts';
import { type RunningGateway, startGateway } from '../../start-gateway.ts';

const queueName = `gw-cv-${randomUUID()}`;
const bucket = `gw-cv-${randomUUID().slice(0, 8)}`;
let s3: TestS3;
let gateway: RunningGateway;
let bare: RunningGateway;
let storage: ObjectStorage;
let queue: Queue;
let redis: Redis;

const pdf = Buffer.from('%PDF-1.4\n1 0 obj<<>>endobj\ntrailer<<>>\n%%EOF\n');
const png = Buffer.from('89504e470d0a1a0a0000000d49484452', 'hex');

beforeAll(async () => {
  s3 = await startTestS3();
  const env = {
    PORT: '0',
    HOST: '127.0.0.1',
    REDIS_URL: inject('redisUrl'),
    QUEUE_NAME: queueName,
    LOG_LEVEL: 'silent',
  };
  gateway = await startGateway(loadConfig({ ...env, ...s3.env(bucket) }));
  bare = await startGateway(loadConfig(env));
  const settings = storageSettings({
    S3_REGION: 'us-east-1',
    S3_CREATE_BUCKET: 'false',
    S3_TIMEOUT_MS: 5000,
    ...s3.env(bucket),
  });
  storage = createObjectStorage(settings!);
  redis = new Redis(inject('redisUrl'), { maxRetriesPerRequest: null });
  queue = new Queue(queueName, { connection: redis });
});
afterAll(async () => {
  await gateway?.stop();
  await bare?.stop();
  await queue?.obliterate({ force: true });
  await queue?.close();
  redis?.disconnect();
  storage?.close();
  await s3?.stop();
});
beforeEach(async () => {
  await queue.obliterate({ force: true });
});

function apply(cvFile: Record<string, unknown>, url = gateway.url) {
  return fetch(`${url}/api/careers-apply`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({
      name: 'Grace',
      email: `${randomUUID()}@acme.io`,
      role: 'Engineer',
      cvFile: { filename: 'cv.pdf', contentType: 'application/pdf', ...cvFile },
    }),
  });
}

async function stagedObjects(): Promise<number> {
  const listed = await storage.client.send(new ListObjectsV2Command({ Bucket: bucket }));
  return listed.KeyCount ?? 0;
}

/** The careers answer is {error: CODE, message, field?}; nothing may be enqueued, and nothing staged. */
async function expectRejected(res: Response, code: ErrorCode, mentions: string) {
  expect(res.status).toBe(ERROR_CODES[code].status);
  const body = await res.json();
  // Every CV rejection names the cvFile field at fault, so a form can show it beside the file input.
  expect(body).toEqual({
    error: code,
    message: expect.stringContaining(mentions),
    field: expect.stringMatching(/^cvFile\./),
  });
  expect(Object.values(await queue.getJobCounts()).reduce((a, b) => a + b, 0)).toBe(0);
  expect(await stagedObjects()).toBe(0);
}

describe('careers-apply CV checks at the door', () => {
  it('base64 that does not decode: 400 CV_INVALID_BASE64', async () => {
    await expectRejected(await apply({ data: 'this is not base64!' }), 'CV_INVALID_BASE64', '"cvFile.data"');
    await expectRejected(await apply({ data: 'data:application/pdf,%25PDF-1.4' }), 'CV_INVALID_BASE64', 'base64');
  });

  it('a type other than PDF, DOC or DOCX: 400 INVALID_FIELD naming cvFile.contentType and the accepted types', async () => {
    await expectRejected(
      await apply({ contentType: 'image/png', data: png.toString('base64') }),
      'INVALID_FIELD',
      'application/pdf',
    );
  });

  it('bytes that are not what contentType says: 400 CV_CONTENT_MISMATCH naming what they are', async () => {
    await expectRejected(await apply({ data: png.toString('base64') }), 'CV_CONTENT_MISMATCH', 'PNG');
  });

  it('a CV over 5 MiB: 413 CV_TOO_LARGE, whether caught decoded, by length, or by the body limit', async () => {
    const justOver = Buffer.concat([pdf, Buffer.alloc(CV_MAX_BYTES + 1 - pdf.length)]);
    expect(justOver.toString('base64').length).toBeLessThanOrEqual(CV_DATA_MAX_LENGTH);
    await expectRejected(await apply({ data: justOver.toString('base64') }), 'CV_TOO_LARGE', '5 MiB');
    await expectRejected(await apply({ data: 'A'.repeat(CV_DATA_MAX_LENGTH + 4) }), 'CV_TOO_LARGE', '5 MiB');
    await expectRejected(await apply({ data: 'A'.repeat(8 * 1024 * 1024) }), 'CV_TOO_LARGE', '5 MiB');
  });

  it('a CV of exactly 5 MiB is accepted and staged; the job holds a reference only', async () => {
    const atLimit = Buffer.concat([pdf, Buffer.alloc(CV_MAX_BYTES - pdf.length)]);
    const res = await apply({ data: atLimit.toString('base64') });
    expect(res.status).toBe(200);
    const body = await res.json();
    expect(body.cvUploadFailed).toBe(false);
    const job = await queue.getJob(body.recordId);
    expect(job?.data.data.stagedCv).toMatchObject({ key: `incoming/cv/${body.recordId}.pdf`, size: CV_MAX_BYTES });
    expect(JSON.stringify(job?.data).length).toBeLessThan(2_000);
  });

  it('other routes keep their small body limit', async () => {
    const res = await fetch(`${gateway.url}/api/contact`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ email: 'a@acme.io', message: 'x'.repeat(64 * 1024) }),
    });
    expect(res.status).toBe(413);
  });

  it('without object storage, a valid CV still gets the application accepted, with cvUploadFailed: true', async () => {
    const res = await apply({ data: pdf.toString('base64') }, bare.url);
    expect(res.status).toBe(200);
    const body = await res.json();
    expect(body.cvUploadFailed).toBe(true);
    const job = await queue.getJob(body.recordId);
    expect(job?.data.data).toMatchObject({ cvUploadFailed: true });
    expect(job?.data.data).not.toHaveProperty('stagedCv');
  });
});
