import { randomUUID } from 'node:crypto';
import type { S3Client } from '@aws-sdk/client-s3';
import type { RunningGateway } from '@forms/gateway';
import { startTestS3, type TestS3 } from '@forms/local-services';
import type { Database } from '@forms/worker';
import type { Queue } from 'bullmq';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  careersBody,
  DOC_TYPE,
  DOCX_TYPE,
  inspectionClient,
  jobWithLostCv,
  PDF_TYPE,
  readObject,
  sampleDoc,
  sampleDocx,
  samplePdf,
  sha256,
} from '../support/cv-files.ts';
import { sendJson } from '../support/http.ts';
import { type Pipeline, startPipeline } from '../support/pipeline.ts';
import { eventually } from '../support/wait.ts';

const bucket = `cv-it-${randomUUID().slice(0, 8)}`;
let s3: TestS3;
let pipeline: Pipeline;
let db: Database;
let gateway: RunningGateway;
let queue: Queue;
let client: S3Client;

beforeAll(async () => {
  s3 = await startTestS3();
  pipeline = await startPipeline(s3.env(bucket));
  ({ db, gateway, queue } = pipeline);
  client = inspectionClient(s3.env(bucket));
});
afterAll(async () => {
  await pipeline?.stop();
  client?.destroy();
  await s3?.stop();
});

async function rowFor(id: string): Promise<Record<string, any> | undefined> {
  const { rows } = await db.query('SELECT * FROM submissions WHERE id = $1', [id]);
  return rows[0];
}

describe('careers CVs: gateway checks and stages, worker stores and links', () => {
  it.each([
    ['PDF', samplePdf(2048), PDF_TYPE, 'pdf'],
    ['DOC', sampleDoc(), DOC_TYPE, 'doc'],
    ['DOCX', sampleDocx(), DOCX_TYPE, 'docx'],
  ] as const)(
    'a %s arrives byte-identical in the bucket and is linked from the CRM row',
    async (_name, bytes, contentType, ext) => {
      const res = await sendJson(
        `${gateway.url}/api/careers-apply`,
        careersBody(randomUUID(), bytes, contentType, `../Lebenslauf Müller.${ext}`),
      );
      expect(res.status).toBe(200);
      expect(res.body).toMatchObject({ success: true, cvUploadFailed: false });
      const id = res.body.recordId as string;

      // The job carries a reference, never the bytes.
      const job = await queue.getJob(id);
      expect(job?.data.data).not.toHaveProperty('cvFile');
      expect(job?.data.data.stagedCv).toEqual({
        key: `incoming/cv/${id}.${ext}`,
        filename: `../Lebenslauf Müller.${ext}`,
        contentType,
        size: bytes.length,
        sha256: sha256(bytes),
      });
      expect(JSON.stringify(job?.data).length).toBeLessThan(2_000);

      let row: Record<string, any> | undefined;
      await eventually(async () => {
        row = await rowFor(id);
        return row !== undefined;
      });
      expect(row).toMatchObject({
        cv_key: `cv/${id}.${ext}`,
        cv_filename: `../Lebenslauf Müller.${ext}`,
        cv_content_type: contentType,
        cv_size: bytes.length,
        cv_sha256: sha256(bytes),
        cv_upload_failed: false,
      });

      const stored = await readObject(client, bucket, row!.cv_key);
      expect(sha256(stored!.bytes)).toBe(sha256(bytes));
      expect(stored!.head.ContentType).toBe(contentType);
      expect(stored!.head.ContentDisposition).toBe(
        `attachment; filename="Lebenslauf Muller.${ext}"; filename*=UTF-8''Lebenslauf%20M%C3%BCller.${ext}`,
      );
      expect(stored!.head.Metadata).toMatchObject({ sha256: sha256(bytes), 'submission-id': id });
      // Once the CRM links the final copy, the staging copy goes.
      await eventually(async () => (await readObject(client, bucket, `incoming/cv/${id}.${ext}`)) === undefined, {
        timeoutMs: 5_000,
      });
    },
  );

  it('accepts a data-URL prefix and strips it', async () => {
    const bytes = samplePdf();
    const body = careersBody(randomUUID(), bytes, PDF_TYPE);
    (body.cvFile as { data: string }).data = `data:application/pdf;base64,${bytes.toString('base64')}`;
    const res = await sendJson(`${gateway.url}/api/careers-apply`, body);
    expect(res.body.cvUploadFailed).toBe(false);
    let row: Record<string, any> | undefined;
    await eventually(async () => {
      row = await rowFor(res.body.recordId);
      return row !== undefined;
    });
    expect(sha256((await readObject(client, bucket, row!.cv_key))!.bytes)).toBe(sha256(bytes));
  });

  it('a staged CV that is gone for good costs only the CV: the application lands, marked cv_upload_failed', async () => {
    const id = `sub_lost${randomUUID().replace(/-/g, '')}`;
    await queue.add('careers-apply.v1', jobWithLostCv(id), { jobId: id, attempts: 3 });
    let row: Record<string, any> | undefined;
    await eventually(async () => {
      row = await rowFor(id);
      return row !== undefined;
    });
    expect(row).toMatchObject({ cv_key: null, cv_upload_failed: true });
    expect(await (await queue.getJob(id))!.getState()).toBe('completed');
  });

  it('an application without a CV has no CV columns', async () => {
    const res = await sendJson(`${gateway.url}/api/careers-apply`, {
      name: 'N',
      email: `${randomUUID()}@acme.io`,
      role: 'R',
    });
    expect(res.body.cvUploadFailed).toBe(false);
    let row: Record<string, any> | undefined;
    await eventually(async () => {
      row = await rowFor(res.body.recordId);
      return row !== undefined;
    });
    expect(row).toMatchObject({ cv_key: null, cv_sha256: null, cv_upload_failed: false });
  });
});
