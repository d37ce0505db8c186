import type { ObjectStorage } from '@forms/object-storage';
import type { CvFileSchema, StagedCv } from '@forms/schemas';
import type { Logger } from 'pino';
import type * as v from 'valibot';
import { decodeCv } from './decode-cv.ts';
import { stageCv } from './stage-cv.ts';

export type CvFile = v.InferOutput<typeof CvFileSchema>;

export type CvOutcome = { stagedCv: StagedCv; cvUploadFailed: false } | { stagedCv?: undefined; cvUploadFailed: boolean };

/**
 * The careers path's CV step, between validation and enqueue. A CV that fails a check throws its 4xx
 * (nothing is enqueued). A CV that passes but cannot be staged (storage down or not configured) does not
 * cost the application: it is accepted with `cvUploadFailed: true`, and the job says so too.
 */
export async function acceptCv(
  { storage, logger }: { storage?: ObjectStorage | undefined; logger?: Logger | undefined },
  submissionId: string,
  cvFile: CvFile | undefined,
): Promise<CvOutcome> {
  if (!cvFile) return { cvUploadFailed: false };
  const cv = await decodeCv(cvFile);
  if (!storage) {
    logger?.warn({ submissionId }, 'CV received but no object storage is configured (S3_BUCKET); application kept without it');
    return { cvUploadFailed: true };
  }
  try {
    return { stagedCv: await stageCv(storage, submissionId, cv), cvUploadFailed: false };
  } catch (err) {
    logger?.warn({ err, submissionId }, 'CV could not be staged in object storage; application kept without it');
    return { cvUploadFailed: true };
  }
}
