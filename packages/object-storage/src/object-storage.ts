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
    await client.send(new HeadBucketCommand({ Bucket: bucket }), {
      abortSignal: AbortSignal.timeout(storage.timeoutMs),
    });
    return 'exists';
  } catch (err) {
    if (httpStatus(err) !== 404) throw err;
  }
  try {
    await client.send(new CreateBucketCommand({ Bucket: bucket }), {
      abortSignal: AbortSignal.timeout(storage.timeoutMs),
    });
  } catch (err) {
    const name = (err as { name?: string }).name;
    if (name !== 'BucketAlreadyOwnedByYou' && name !== 'BucketAlreadyExists') throw err;
  }
  return 'created';
}

/** The two log calls opening storage needs; a pino logger fits. */
export type StorageLogger = { info: (obj: object, msg: string) => void; warn: (obj: object, msg: string) => void };

/**
 * Creates the client and, when configured, the bucket. A bucket that cannot be checked or created at
 * start-up is logged, not fatal: the process must keep serving while storage is away; `whileAway` says
 * in the log what happens meanwhile (the gateway accepts applications without their CVs, the worker's CV
 * jobs retry on their backoff).
 */
export async function openObjectStorage(
  settings: StorageSettings,
  { maxAttempts, logger, whileAway }: { maxAttempts: number; logger: StorageLogger; whileAway: string },
): Promise<ObjectStorage> {
  const storage = createObjectStorage(settings, { maxAttempts });
  if (settings.createBucket) {
    try {
      const outcome = await ensureBucket(storage);
      logger.info({ bucket: settings.bucket, outcome }, 'object storage ready');
    } catch (err) {
      logger.warn({ err, bucket: settings.bucket }, `object storage unreachable at start-up; ${whileAway}`);
    }
  }
  return storage;
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
