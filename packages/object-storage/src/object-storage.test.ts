import { createHash } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { GetObjectCommand, HeadObjectCommand, PutObjectCommand } from '@aws-sdk/client-s3';
import { type LocalS3, startLocalS3 } from '@forms/local-services';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createObjectStorage, ensureBucket, type ObjectStorage } from './object-storage.ts';
import { storageSettings } from './storage-settings.ts';

describe('createObjectStorage against s3rver', () => {
  let dir: string;
  let s3: LocalS3;
  let storage: ObjectStorage;

  beforeAll(async () => {
    dir = mkdtempSync(join(tmpdir(), 'object-storage-test-'));
    s3 = await startLocalS3({ dir });
    const settings = storageSettings({
      S3_ENDPOINT: s3.endpoint,
      S3_BUCKET: 'unit-bucket',
      S3_REGION: 'us-east-1',
      S3_CREATE_BUCKET: 'true',
      S3_TIMEOUT_MS: 5000,
      AWS_ACCESS_KEY_ID: s3.accessKeyId,
      AWS_SECRET_ACCESS_KEY: s3.secretAccessKey,
    });
    storage = createObjectStorage(settings!);
  });
  afterAll(async () => {
    storage.close();
    await s3.stop();
    rmSync(dir, { recursive: true, force: true });
  });

  it('creates the bucket once, then finds it', async () => {
    expect(await ensureBucket(storage)).toBe('created');
    expect(await ensureBucket(storage)).toBe('exists');
  });

  it('stores bytes unchanged, with type, disposition and metadata (no aws-chunked framing)', async () => {
    const body = Buffer.concat([Buffer.from('%PDF-1.4\n'), Buffer.alloc(300_000, 7)]);
    await storage.client.send(
      new PutObjectCommand({
        Bucket: storage.bucket,
        Key: 'cv/sub_x.pdf',
        Body: body,
        ContentType: 'application/pdf',
        ContentDisposition: 'attachment; filename="cv.pdf"',
        Metadata: { sha256: 'abc' },
      }),
    );
    const got = await storage.client.send(new GetObjectCommand({ Bucket: storage.bucket, Key: 'cv/sub_x.pdf' }));
    const bytes = Buffer.from(await got.Body!.transformToByteArray());
    expect(createHash('sha256').update(bytes).digest('hex')).toBe(createHash('sha256').update(body).digest('hex'));
    const head = await storage.client.send(new HeadObjectCommand({ Bucket: storage.bucket, Key: 'cv/sub_x.pdf' }));
    expect(head.ContentType).toBe('application/pdf');
    expect(head.ContentDisposition).toBe('attachment; filename="cv.pdf"');
    expect(head.Metadata).toEqual({ sha256: 'abc' });
  });
});

describe('storageSettings', () => {
  const base = { S3_REGION: 'us-east-1', S3_CREATE_BUCKET: 'true', S3_TIMEOUT_MS: 5000 };
  it('is off without a bucket', () => {
    expect(storageSettings(base)).toBeUndefined();
  });
  it('uses path-style for a custom endpoint unless told otherwise', () => {
    expect(storageSettings({ ...base, S3_BUCKET: 'b', S3_ENDPOINT: 'http://127.0.0.1:1' })?.forcePathStyle).toBe(true);
    expect(storageSettings({ ...base, S3_BUCKET: 'b' })?.forcePathStyle).toBe(false);
    expect(
      storageSettings({ ...base, S3_BUCKET: 'b', S3_ENDPOINT: 'http://x', S3_FORCE_PATH_STYLE: 'false' })
        ?.forcePathStyle,
    ).toBe(false);
  });
  it('leaves credentials to the SDK chain unless both keys are set', () => {
    expect(storageSettings({ ...base, S3_BUCKET: 'b', AWS_ACCESS_KEY_ID: 'a' })?.credentials).toBeUndefined();
  });
});
