import { randomUUID } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { S3Client } from '@aws-sdk/client-s3';
import type { RunningGateway } from '@forms/gateway';
import { type LocalS3, startLocalS3 } from '@forms/local-services';
import type { Database } from '@forms/worker';
import type { Queue } from 'bullmq';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { careersBody, DOCX_TYPE, inspectionClient, readObject, sampleDocx, sha256 } from '../support/cv-files.ts';
import { sendJson } from '../support/http.ts';
import { type Pipeline, startPipeline } from '../support/pipeline.ts';
import { eventually } from '../support/wait.ts';

// This test stops and restarts its own S3 server (s3rver, on the same port and folder), so it uses the
// local one even where a container runtime is available.
const bucket = 'cvs-fault';
let dir: string;
let s3: LocalS3;
let pipeline: Pipeline;
let db: Database;
let gateway: RunningGateway;
let queue: Queue;
let client: S3Client;

beforeAll(async () => {
  dir = mkdtempSync(join(tmpdir(), 'forms-s3-fault-'));
  s3 = await startLocalS3({ dir });
  const s3Env = {
    S3_ENDPOINT: s3.endpoint,
    S3_BUCKET: bucket,
    S3_TIMEOUT_MS: '1000',
    AWS_ACCESS_KEY_ID: s3.accessKeyId,
    AWS_SECRET_ACCESS_KEY: s3.secretAccessKey,
  };
  // The worker starts in the test, once storage is down.
  pipeline = await startPipeline(
    { ...s3Env, RETRY_BASE_DELAY_MS: '200', RETRY_MAX_DELAY_MS: '400' },
    { withWorker: false },
  );
  ({ db, gateway, queue } = pipeline);
  client = inspectionClient(s3Env);
});
afterAll(async () => {
  await pipeline?.stop();
  client?.destroy();
  await s3?.stop();
  rmSync(dir, { recursive: true, force: true });
});

describe('object storage down while the worker runs', () => {
  it('the job retries on its backoff, then completes once storage is back: nothing lost', async () => {
    const bytes = sampleDocx();
    const res = await sendJson(
      `${gateway.url}/api/careers-apply`,
      careersBody(randomUUID(), bytes, DOCX_TYPE, 'cv.docx'),
    );
    expect(res.body).toMatchObject({ success: true, cvUploadFailed: false });
    const id = res.body.recordId as string;

    await s3.stop();
    await pipeline.startWorker();
    // At least two failed attempts, and the CRM write waited for the CV.
    await eventually(async () => ((await queue.getJob(id))?.attemptsMade ?? 0) >= 2, { timeoutMs: 20_000 });
    expect((await db.query('SELECT 1 FROM submissions WHERE id = $1', [id])).rows).toHaveLength(0);
    expect(await (await queue.getJob(id))!.getState()).not.toBe('failed');

    s3 = await startLocalS3({ dir, port: s3.port });
    let row: Record<string, any> | undefined;
    await eventually(
      async () => {
        ({
          rows: [row],
        } = await db.query('SELECT * FROM submissions WHERE id = $1', [id]));
        return row !== undefined;
      },
      { timeoutMs: 20_000 },
    );
    expect(row).toMatchObject({ cv_key: `cv/${id}.docx`, cv_sha256: sha256(bytes), cv_upload_failed: false });
    expect(sha256((await readObject(client, bucket, row!.cv_key))!.bytes)).toBe(sha256(bytes));
    await eventually(async () => (await (await queue.getJob(id))!.getState()) === 'completed');
  });
});
