import { PutObjectCommand } from '@aws-sdk/client-s3';
import { cvContentDisposition, cvMetadata, type ObjectStorage, stagedCvKey } from '@forms/object-storage';
import { withSpan } from '@forms/observability';
import type { StagedCv } from '@forms/schemas';
import type { CheckedCv } from './decode-cv.ts';

/**
 * Writes a checked CV under the staging prefix, where it waits for the worker, and returns the reference
 * the job carries instead of the bytes. Bounded by the storage timeout: the request path never hangs on
 * object storage.
 */
export async function stageCv(storage: ObjectStorage, submissionId: string, cv: CheckedCv): Promise<StagedCv> {
  const key = stagedCvKey(submissionId, cv.contentType);
  const attributes = { 's3.bucket': storage.bucket, 's3.key': key, 'cv.bytes': cv.size };
  await withSpan('s3.put staged-cv', { kind: 'client', attributes }, () =>
    storage.client.send(
      new PutObjectCommand({
        Bucket: storage.bucket,
        Key: key,
        Body: cv.bytes,
        ContentLength: cv.size,
        ContentType: cv.contentType,
        ContentDisposition: cvContentDisposition(cv.filename, cv.contentType),
        Metadata: cvMetadata({ filename: cv.filename, sha256: cv.sha256, submissionId }),
      }),
      { abortSignal: AbortSignal.timeout(storage.timeoutMs) },
    ),
  );
  return { key, filename: cv.filename, contentType: cv.contentType, size: cv.size, sha256: cv.sha256 };
}
