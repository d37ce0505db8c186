import { freePort } from '@forms/local-services';
import { createObjectStorage, storageSettings } from '@forms/object-storage';
import type { JobPayload } from '@forms/schemas';
import type { Job } from 'bullmq';
import { describe, expect, it } from 'vitest';
import { CvLostError } from '../storage/finalise-cv.ts';
import { attachCv } from './attach-cv.ts';

const submission = {
  v: 1,
  submissionId: 'sub_01test',
  recordId: 'sub_01test',
  kind: 'careers-apply',
  acceptedAt: new Date().toISOString(),
  data: {
    name: 'Grace',
    email: 'grace@acme.io',
    role: 'Engineer',
    stagedCv: {
      key: 'incoming/cv/sub_01test.pdf',
      filename: 'cv.pdf',
      contentType: 'application/pdf',
      size: 10,
      sha256: 'a'.repeat(64),
    },
  },
} as const satisfies JobPayload<'careers-apply'>;

function job(attemptsMade: number, attempts = 14) {
  return { id: 'sub_01test', attemptsMade, opts: { attempts } } as unknown as Job;
}

async function deadStorage() {
  const settings = storageSettings({
    S3_ENDPOINT: `http://127.0.0.1:${await freePort()}`,
    S3_BUCKET: 'cvs',
    S3_REGION: 'us-east-1',
    S3_CREATE_BUCKET: 'false',
    S3_TIMEOUT_MS: 500,
    AWS_ACCESS_KEY_ID: 'k',
    AWS_SECRET_ACCESS_KEY: 's',
  });
  return createObjectStorage(settings!, { maxAttempts: 1 });
}

describe('attachCv', () => {
  it('leaves submissions without a staged CV alone', async () => {
    const plain = { ...submission, data: { name: 'G', email: 'g@acme.io', role: 'R' } };
    expect(await attachCv(job(0), plain, { storage: undefined, urlTtlSeconds: 60 })).toBe(plain);
  });

  it('throws while storage is away, so the job retries and the CRM write waits', async () => {
    const storage = await deadStorage();
    // The S3 client's own connection error, not a CvLostError (that would deliver without the CV at once).
    const away = await attachCv(job(0), submission, { storage, urlTtlSeconds: 60 }).catch((err: unknown) => err);
    expect(away).toBeInstanceOf(Error);
    expect(away).not.toBeInstanceOf(CvLostError);
    expect(String((away as Error & { code?: string }).code ?? (away as Error).message)).toMatch(
      /ECONNREFUSED|connect/i,
    );
    await expect(attachCv(job(3), submission, { storage: undefined, urlTtlSeconds: 60 })).rejects.toThrow(/S3_BUCKET/);
    storage.close();
  });

  it('on the last attempt, delivers the application without its CV, marked cvUploadFailed', async () => {
    const storage = await deadStorage();
    const delivered = await attachCv(job(13), submission, { storage, urlTtlSeconds: 60 });
    expect(delivered).not.toHaveProperty('cv');
    expect(delivered.data).toMatchObject({ cvUploadFailed: true, stagedCv: submission.data.stagedCv });
    storage.close();
  });
});
