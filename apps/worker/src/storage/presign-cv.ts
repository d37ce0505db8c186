import { GetObjectCommand } from '@aws-sdk/client-s3';
import { getSignedUrl } from '@aws-sdk/s3-request-presigner';
import type { ObjectStorage } from '@forms/object-storage';

/**
 * A short-lived GET URL for a stored CV, for a CRM that fetches attachments by URL (Airtable). Made when
 * the job runs, so a retry gets a fresh one. Signing is local: no request to storage.
 */
export async function presignCv(
  storage: ObjectStorage,
  key: string,
  ttlSeconds: number,
): Promise<{ url: string; expiresAt: string }> {
  const url = await getSignedUrl(storage.client, new GetObjectCommand({ Bucket: storage.bucket, Key: key }), {
    expiresIn: ttlSeconds,
  });
  return { url, expiresAt: new Date(Date.now() + ttlSeconds * 1000).toISOString() };
}
