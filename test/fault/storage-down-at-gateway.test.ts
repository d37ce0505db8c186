import { randomUUID } from 'node:crypto';
import type { RunningGateway } from '@forms/gateway';
import { freePort } from '@forms/local-services';
import type { Database } from '@forms/worker';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { careersBody, PDF_TYPE, samplePdf } from '../support/cv-files.ts';
import { sendJson } from '../support/http.ts';
import { type Pipeline, startPipeline } from '../support/pipeline.ts';
import { eventually } from '../support/wait.ts';

// Object storage is configured but nothing listens there: every S3 call is refused.
let pipeline: Pipeline;
let db: Database;
let gateway: RunningGateway;

beforeAll(async () => {
  const deadS3 = {
    S3_ENDPOINT: `http://127.0.0.1:${await freePort()}`,
    S3_BUCKET: 'cvs',
    S3_TIMEOUT_MS: '1000',
    AWS_ACCESS_KEY_ID: 'S3RVER',
    AWS_SECRET_ACCESS_KEY: 'S3RVER',
  };
  pipeline = await startPipeline(deadS3);
  ({ db, gateway } = pipeline);
});
afterAll(() => pipeline?.stop());

describe('object storage down at the gateway', () => {
  it('answers cvUploadFailed: true at once, and the application is still delivered', async () => {
    const started = performance.now();
    const res = await sendJson(`${gateway.url}/api/careers-apply`, careersBody(randomUUID(), samplePdf(), PDF_TYPE));
    expect(performance.now() - started).toBeLessThan(3_000);
    expect(res.status).toBe(200);
    expect(res.body).toMatchObject({ success: true, cvUploadFailed: true });

    let row: Record<string, any> | undefined;
    await eventually(async () => {
      ({
        rows: [row],
      } = await db.query('SELECT * FROM submissions WHERE id = $1', [res.body.recordId]));
      return row !== undefined;
    });
    expect(row).toMatchObject({ kind: 'careers-apply', cv_key: null, cv_upload_failed: true });
    expect(row!.payload).toMatchObject({ name: 'Grace Hopper', cvUploadFailed: true });
    expect(row!.payload).not.toHaveProperty('cvFile');
  });
});
