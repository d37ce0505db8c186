import { createHash } from 'node:crypto';
import { DeleteObjectCommand, GetObjectCommand, HeadObjectCommand, PutObjectCommand } from '@aws-sdk/client-s3';
import { cvContentDisposition, cvMetadata, finalCvKey, isNotFound, type ObjectStorage } from '@forms/object-storage';
import { withSpan } from '@forms/observability';
import type { StagedCv } from '@forms/schemas';

/** The staged CV is gone or damaged and no final copy exists: no retry can bring it back. */
export class CvLostError extends Error {
  override name = 'CvLostError';
}

/**
 * Writes the final object of a staged CV and returns its key. Idempotent: when the final object already
 * exists with the expected SHA-256 (a retry, a replay, a job run twice), nothing is read or written. The
 * staged bytes are read and hashed before the write, so the object a CRM links is exactly what the
 * applicant sent. Network and server errors are thrown as they are, for the job's backoff to retry.
 */
export async function finaliseCv(storage: ObjectStorage, submissionId: string, staged: StagedCv): Promise<string> {
  const { client, bucket } = storage;
  const key = finalCvKey(submissionId, staged.contentType);
  const signal = () => AbortSignal.timeout(storage.timeoutMs);

  try {
    const head = await client.send(new HeadObjectCommand({ Bucket: bucket, Key: key }), { abortSignal: signal() });
    if (head.Metadata?.sha256 === staged.sha256) return key;
  } catch (err) {
    if (!isNotFound(err)) throw err;
  }

  let bytes: Buffer;
  try {
    const got = await client.send(new GetObjectCommand({ Bucket: bucket, Key: staged.key }), { abortSignal: signal() });
    bytes = Buffer.from(await got.Body!.transformToByteArray());
  } catch (err) {
    if (isNotFound(err)) throw new CvLostError(`Staged CV ${staged.key} is missing and ${key} was never written`);
    throw err;
  }
  const sha256 = createHash('sha256').update(bytes).digest('hex');
  if (sha256 !== staged.sha256 || bytes.length !== staged.size) {
    throw new CvLostError(`Staged CV ${staged.key} does not match its job (sha256 ${sha256}, ${bytes.length} bytes)`);
  }

  const attributes = { 's3.bucket': bucket, 's3.key': key, 'cv.bytes': bytes.length };
  await withSpan('s3.put cv', { kind: 'client', attributes }, () =>
    client.send(
      new PutObjectCommand({
        Bucket: bucket,
        Key: key,
        Body: bytes,
        ContentLength: bytes.length,
        ContentType: staged.contentType,
        ContentDisposition: cvContentDisposition(staged.filename, staged.contentType),
        Metadata: cvMetadata({ filename: staged.filename, sha256: staged.sha256, submissionId }),
      }),
      { abortSignal: signal() },
    ),
  );
  return key;
}

/**
 * Removes the staging copy once the CRM links the final one. Best effort: a leftover is harmless (its
 * final copy exists) and a lifecycle rule on `incoming/` sweeps it.
 */
export async function removeStagedCv(storage: ObjectStorage, staged: StagedCv): Promise<void> {
  await storage.client.send(new DeleteObjectCommand({ Bucket: storage.bucket, Key: staged.key }), {
    abortSignal: AbortSignal.timeout(storage.timeoutMs),
  });
}
