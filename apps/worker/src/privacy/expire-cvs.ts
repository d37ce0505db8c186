import { DeleteObjectCommand, ListObjectsV2Command } from '@aws-sdk/client-s3';
import type { ObjectStorage } from '@forms/object-storage';
import type { Crm } from '../crm/crm.ts';

/** Where CVs live: what the gateway staged, and the worker's final copies (see cv-objects.ts). */
const CV_PREFIXES = ['incoming/cv/', 'cv/'];
/** Pages of 1,000 keys listed per prefix and run: one run sees up to a million CVs. */
const MAX_PAGES = 1_000;

export type CvRetentionResult = { deleted: string[]; linksCleared: number };

/**
 * Deletes every CV object (staged or final) whose last write is more than `retentionDays` before `now`,
 * then clears the CRM's link to the final ones. S3's own lifecycle rule, where there is one, judges age
 * the same way (from the object's creation), so the two agree. `now` is injected: tests move the clock
 * instead of waiting.
 */
export async function expireCvs({
  storage,
  crm,
  retentionDays,
  now,
}: {
  storage: ObjectStorage;
  crm: Pick<Crm, 'clearCvLinks'>;
  retentionDays: number;
  now: number;
}): Promise<CvRetentionResult> {
  const cutoff = now - retentionDays * 86_400_000;
  const deleted: string[] = [];
  const signal = () => AbortSignal.timeout(storage.timeoutMs);
  for (const prefix of CV_PREFIXES) {
    let token: string | undefined;
    for (let page = 0; page < MAX_PAGES; page++) {
      const listed = await storage.client.send(
        new ListObjectsV2Command({ Bucket: storage.bucket, Prefix: prefix, ContinuationToken: token }),
        { abortSignal: signal() },
      );
      for (const object of listed.Contents ?? []) {
        // `cv/` also lists nothing of `incoming/`: prefixes match from the start of the key.
        if (!object.Key || !object.LastModified || object.LastModified.getTime() > cutoff) continue;
        await storage.client.send(new DeleteObjectCommand({ Bucket: storage.bucket, Key: object.Key }), {
          abortSignal: signal(),
        });
        deleted.push(object.Key);
      }
      token = listed.IsTruncated ? listed.NextContinuationToken : undefined;
      if (!token) break;
    }
  }
  const submissionIds = deleted
    .filter((key) => key.startsWith('cv/'))
    .map((key) => /^cv\/([\w-]+)\.\w+$/.exec(key)?.[1])
    .filter((id): id is string => id !== undefined);
  const linksCleared = await crm.clearCvLinks(submissionIds);
  return { deleted, linksCleared };
}
