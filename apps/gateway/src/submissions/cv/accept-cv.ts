import type { ObjectStorage } from '@forms/object-storage';
import type { StagedCv } from '@forms/schemas';
import type { Logger } from 'pino';
import type { CheckedCv } from './decode-cv.ts';
import { stageCv } from './stage-cv.ts';

type CvOutcome = { stagedCv: StagedCv; cvUploadFailed: false } | { stagedCv?: undefined; cvUploadFailed: boolean };

/**
 * The careers path's CV step, between the claim and the enqueue; the CV was checked (`decodeCv`) before
 * anything was claimed, so a CV that fails a check answers its 4xx and leaves no trace. A CV that passes
 * but cannot be staged (storage down or not configured) does not
 * cost the application: it is accepted with `cvUploadFailed: true`, and the job says so too.
 */
export type CvDeps = { storage?: ObjectStorage | undefined; logger?: Logger | undefined };

export async function acceptCv(
  { storage, logger }: CvDeps,
  submissionId: string,
  cv: CheckedCv | undefined,
): Promise<CvOutcome> {
  if (!cv) return { cvUploadFailed: false };
  if (!storage) {
    logger?.warn(
      { submissionId },
      'CV received but no object storage is configured (S3_BUCKET); application kept without it',
    );
    return { cvUploadFailed: true };
  }
  try {
    return { stagedCv: await stageCv(storage, submissionId, cv), cvUploadFailed: false };
  } catch (err) {
    logger?.warn({ err, submissionId }, 'CV could not be staged in object storage; application kept without it');
    return { cvUploadFailed: true };
  }
}
