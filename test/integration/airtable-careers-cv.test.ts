import { randomUUID } from 'node:crypto';
import { loadConfig as gatewayConfig, type RunningGateway, startGateway } from '@forms/gateway';
import { startTestS3, type TestS3 } from '@forms/local-services';
import { type RunningWorker, startWorker, loadConfig as workerConfig } from '@forms/worker';
import { Queue } from 'bullmq';
import { pino } from 'pino';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import {
  type FakeAirtable,
  type StoredAttachment,
  type StoredRecord,
  startFakeAirtable,
} from '../support/airtable-server.ts';
import { careersBody, jobWithLostCv, PDF_TYPE, samplePdf, sha256 } from '../support/cv-files.ts';
import { sendJson } from '../support/http.ts';
import { eventually } from '../support/wait.ts';

// A careers CV from the gateway, through S3, to an Airtable attachment: the local Airtable server downloads
// the file from the presigned URL the worker puts in the upsert, as Airtable does, and keeps its hash.
const BASE = `appCareersCv${Date.now().toString(36)}`;
const KEY = 'patCareersCvTest';
const queueName = `airtable-cv-${randomUUID()}`;
const bucket = `cv-at-${randomUUID().slice(0, 8)}`;
// The Applications table as docs/airtable.md#the-mapping-file describes it; a field the mapping writes outside it is a 422.
const APPLICATION_FIELDS = [
  'Email',
  'Name',
  'Role',
  'LinkedIn',
  'CV Link',
  'Note',
  'CV',
  'CV Key',
  'CV SHA-256',
  'CV Size',
  'CV Type',
  'CV Upload Failed',
  'Submission ID',
  'Record ID',
  'Form',
  'Accepted At',
];

let s3: TestS3;
let airtable: FakeAirtable;
let worker: RunningWorker;
let gateway: RunningGateway;
let queue: Queue;

beforeAll(async () => {
  s3 = await startTestS3();
  airtable = await startFakeAirtable({
    apiKey: KEY,
    schema: { Applications: APPLICATION_FIELDS },
    attachmentFields: { Applications: ['CV'] },
    attachmentTimeoutMs: 3_000,
  });
  const env = { REDIS_URL: inject('redisUrl'), QUEUE_NAME: queueName, LOG_LEVEL: 'silent', ...s3.env(bucket) };
  const config = workerConfig({
    ...env,
    AIRTABLE_API_KEY: KEY,
    AIRTABLE_BASE_ID: BASE,
    AIRTABLE_ENDPOINT_URL: airtable.url,
    AIRTABLE_RATE_LIMIT: '20',
    AIRTABLE_REQUEST_TIMEOUT_MS: '2000',
    RETRY_BASE_DELAY_MS: '50',
    RETRY_MAX_DELAY_MS: '200',
  });
  worker = await startWorker(config, pino({ level: 'silent' }));
  gateway = await startGateway(gatewayConfig({ ...env, PORT: '0', HOST: '127.0.0.1' }));
  queue = new Queue(queueName, { connection: { url: inject('redisUrl') } });
});

afterAll(async () => {
  await gateway?.stop();
  await worker?.stop();
  await queue?.obliterate({ force: true }).catch(() => {});
  await queue?.close();
  await airtable?.close();
  await s3?.stop();
});

function applications(submissionId: string): StoredRecord[] {
  return airtable.records(BASE, 'Applications').filter((r) => r.fields['Submission ID'] === submissionId);
}

/** Waits for the job to complete after `since` (its previous finishedOn), then for Airtable's downloads. */
async function completed(id: string, since = 0): Promise<void> {
  await eventually(
    async () => {
      const job = await queue.getJob(id);
      return (await job?.getState()) === 'completed' && (job?.finishedOn ?? 0) > since;
    },
    { timeoutMs: 8_000, everyMs: 50 },
  );
  await airtable.attachmentsSettled();
}

describe('careers CVs in Airtable', () => {
  it('attach to the application byte-identical, with key, SHA-256, size and type; a replay leaves one record, one attachment', async () => {
    const bytes = samplePdf(4096);
    const res = await sendJson(`${gateway.url}/api/careers-apply`, careersBody(randomUUID(), bytes, PDF_TYPE));
    expect(res.status).toBe(200);
    expect(res.body).toMatchObject({ success: true, cvUploadFailed: false });
    const id = res.body.recordId as string;
    await completed(id);

    const [record, ...others] = applications(id);
    expect(others).toEqual([]);
    expect(record!.fields).toMatchObject({
      'CV Key': `cv/${id}.pdf`,
      'CV SHA-256': sha256(bytes),
      'CV Size': bytes.length,
      'CV Type': PDF_TYPE,
      Name: 'Grace Hopper',
      Form: 'careers-apply',
    });
    expect(record!.fields).not.toHaveProperty('CV Upload Failed');
    const [attachment, ...moreAttachments] = record!.fields.CV as StoredAttachment[];
    expect(moreAttachments).toEqual([]);
    // What Airtable downloaded from the presigned URL is exactly what the applicant sent.
    expect(attachment).toMatchObject({
      filename: 'Grace Hopper CV.pdf',
      size: bytes.length,
      type: PDF_TYPE,
      sha256: sha256(bytes),
    });
    expect(attachment!.url.startsWith(`${airtable.url}/attachments/`)).toBe(true);
    const copy = Buffer.from(await (await fetch(attachment!.url)).arrayBuffer());
    expect(sha256(copy)).toBe(sha256(bytes));
    expect(airtable.stats.attachmentFailures).toEqual([]);
    const job = await queue.getJob(id);
    expect(job!.returnvalue).toEqual({ crmRecordId: record!.id });

    // Ops replay the completed job. Its staged copy went after the first delivery, so this run links the
    // final object again with a fresh URL; the new attachment cell replaces the old one.
    const writesBefore = airtable.stats.recordsWritten;
    await job!.retry('completed');
    await completed(id, job!.finishedOn);
    expect(airtable.stats.recordsWritten).toBe(writesBefore + 1);
    const replayed = applications(id);
    expect(replayed.map((r) => r.id)).toEqual([record!.id]);
    const after = replayed[0]!.fields.CV as StoredAttachment[];
    expect(after).toHaveLength(1);
    expect(after[0]!.id).not.toBe(attachment!.id);
    expect(after[0]).toMatchObject({ size: bytes.length, sha256: sha256(bytes) });
    expect(airtable.stats.attachmentsDownloaded).toBeGreaterThanOrEqual(2);
  });

  it('a CV that could not be kept ticks CV Upload Failed and attaches nothing', async () => {
    const id = `sub_lost${randomUUID().replace(/-/g, '')}`;
    await queue.add('careers-apply.v1', jobWithLostCv(id), { jobId: id, attempts: 2 });
    await completed(id);
    const [record, ...others] = applications(id);
    expect(others).toEqual([]);
    expect(record!.fields['CV Upload Failed']).toBe(true);
    for (const field of ['CV', 'CV Key', 'CV SHA-256', 'CV Size', 'CV Type'])
      expect(record!.fields).not.toHaveProperty(field);
  });
});

describe('the local Airtable server, on attachment cells', () => {
  async function upsert(fields: Record<string, unknown>) {
    const res = await fetch(`${airtable.url}/v0/${BASE}/Applications`, {
      method: 'PATCH',
      headers: { authorization: `Bearer ${KEY}`, 'content-type': 'application/json' },
      body: JSON.stringify({
        performUpsert: { fieldsToMergeOn: ['Submission ID'] },
        records: [{ fields: { 'Submission ID': `sub_fake_${randomUUID()}`, ...fields } }],
        typecast: true,
      }),
      signal: AbortSignal.timeout(2_000),
    });
    return { status: res.status, body: (await res.json()) as any };
  }

  it('refuses what Airtable refuses: no array, an object without url, an object in a text field', async () => {
    expect(await upsert({ CV: 'http://127.0.0.1:1/cv.pdf' })).toMatchObject({
      status: 422,
      body: { error: { type: 'INVALID_VALUE_FOR_COLUMN' } },
    });
    expect(await upsert({ CV: [{ filename: 'cv.pdf' }] })).toMatchObject({
      status: 422,
      body: { error: { type: 'INVALID_ATTACHMENT_OBJECT' } },
    });
    expect(await upsert({ CV: [{ url: 'ftp://127.0.0.1/cv.pdf' }] })).toMatchObject({
      status: 422,
      body: { error: { type: 'INVALID_ATTACHMENT_OBJECT' } },
    });
    expect(await upsert({ 'CV Key': [{ url: 'http://127.0.0.1:1/cv.pdf' }] })).toMatchObject({
      status: 422,
      body: { error: { type: 'INVALID_VALUE_FOR_COLUMN' } },
    });
  });

  it('accepts a URL it will not fetch (not 127.0.0.1), and records why it has no copy', async () => {
    const failuresBefore = airtable.stats.attachmentFailures.length;
    const res = await upsert({ CV: [{ url: 'https://files.example/path/Ada%20CV.pdf' }] });
    expect(res.status).toBe(200);
    // Airtable's first answer: the attachment as sent, named after the URL; size and type come with the copy.
    expect(res.body.records[0].fields.CV).toEqual([
      { id: expect.stringMatching(/^att/), url: 'https://files.example/path/Ada%20CV.pdf', filename: 'Ada CV.pdf' },
    ]);
    await airtable.attachmentsSettled();
    expect(airtable.stats.attachmentFailures.slice(failuresBefore)).toEqual([
      { url: 'https://files.example/path/Ada%20CV.pdf', error: expect.stringMatching(/^not fetched/) },
    ]);
  });
});
