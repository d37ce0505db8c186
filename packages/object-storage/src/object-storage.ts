import { CreateBucketCommand, HeadBucketCommand, S3Client } from '@aws-sdk/client-s3';
import type { StorageSettings } from './storage-settings.ts';

/** One S3 client and the bucket it writes to: what the gateway stages into and the worker finalises from. */
export type ObjectStorage = { client: S3Client; bucket: string; timeoutMs: number; close: () => void };

/**
 * An S3 client that works with S3-compatible servers as well as AWS. Checksums only "when required":
 * with the SDK's newer default (always), uploads are sent with aws-chunked framing and trailing
 * checksums, which s3rver and some other servers store inside the object, silently corrupting it.
 */
export function createObjectStorage(settings: StorageSettings, { maxAttempts = 3 } = {}): ObjectStorage {
  const client = new S3Client({
    region: settings.region,
    ...(settings.endpoint ? { endpoint: settings.endpoint } : {}),
    forcePathStyle: settings.forcePathStyle,
    ...(settings.credentials ? { credentials: settings.credentials } : {}),
    requestChecksumCalculation: 'WHEN_REQUIRED',
    responseChecksumValidation: 'WHEN_REQUIRED',
    maxAttempts,
  });
  return { client, bucket: settings.bucket, timeoutMs: settings.timeoutMs, close: () => client.destroy() };
}

/** Creates the bucket when it does not exist yet. Safe to race: "already owned by you" counts as done. */
export async function ensureBucket(storage: ObjectStorage): Promise<'exists' | 'created'> {
  const { client, bucket } = storage;
  try {
    await client.send(new HeadBucketCommand({ Bucket: bucket }), { abortSignal: AbortSignal.timeout(storage.timeoutMs) });
    return 'exists';
  } catch (err) {
    if (httpStatus(err) !== 404) throw err;
  }
  try {
    await client.send(new CreateBucketCommand({ Bucket: bucket }), { abortSignal: AbortSignal.timeout(storage.timeoutMs) });
  } catch (err) {
    const name = (err as { name?: string }).name;
    if (name !== 'BucketAlreadyOwnedByYou' && name !== 'BucketAlreadyExists') throw err;
  }
  return 'created';
}

/** The HTTP status an S3 call failed with, when the server answered at all. */
export function httpStatus(err: unknown): number | undefined {
  return (err as { $metadata?: { httpStatusCode?: number } }).$metadata?.httpStatusCode;
}

/** True when the object (or bucket) is not there: S3 says 404 with NoSuchKey, NotFound or NoSuchBucket. */
export function isNotFound(err: unknown): boolean {
  const name = (err as { name?: string }).name;
  return httpStatus(err) === 404 || name === 'NoSuchKey' || name === 'NotFound';
}
