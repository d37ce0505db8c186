import { createObjectStorage, ensureBucket, type ObjectStorage, type StorageSettings } from '@forms/object-storage';
import type { Logger } from 'pino';

/**
 * The gateway's object storage: it only stages checked CVs. Two attempts at most, each bounded by
 * S3_TIMEOUT_MS, because a request is waiting. A bucket that cannot be checked or created at start-up is
 * logged, not fatal: the gateway must keep accepting applications (with `cvUploadFailed: true`) while
 * storage is away.
 */
export async function openGatewayStorage(settings: StorageSettings, logger: Logger): Promise<ObjectStorage> {
  const storage = createObjectStorage(settings, { maxAttempts: 2 });
  if (settings.createBucket) {
    try {
      const outcome = await ensureBucket(storage);
      logger.info({ bucket: settings.bucket, outcome }, 'object storage ready');
    } catch (err) {
      logger.warn({ err, bucket: settings.bucket }, 'object storage unreachable at start-up; applications are accepted without their CVs (cvUploadFailed) until it is back');
    }
  }
  return storage;
}
