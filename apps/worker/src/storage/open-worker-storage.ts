import { createObjectStorage, ensureBucket, type ObjectStorage, type StorageSettings } from '@forms/object-storage';
import type { Logger } from 'pino';

/**
 * The worker's object storage. A bucket that cannot be checked or created at start-up is logged, not
 * fatal: submissions without a CV must keep flowing, and CV jobs retry on their backoff until storage is
 * back (the first finalise that succeeds proves the bucket is there).
 */
export async function openWorkerStorage(settings: StorageSettings, logger: Logger): Promise<ObjectStorage> {
  const storage = createObjectStorage(settings, { maxAttempts: 3 });
  if (settings.createBucket) {
    try {
      const outcome = await ensureBucket(storage);
      logger.info({ bucket: settings.bucket, outcome }, 'object storage ready');
    } catch (err) {
      logger.warn({ err, bucket: settings.bucket }, 'object storage unreachable at start-up; CV jobs will retry until it is back');
    }
  }
  return storage;
}
