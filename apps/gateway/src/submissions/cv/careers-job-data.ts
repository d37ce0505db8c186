import type { CareersApplyJobDataOutput, CareersApplyRequestOutput } from '@forms/schemas';
import { acceptCv, type CvDeps } from './accept-cv.ts';
import type { CheckedCv } from './decode-cv.ts';

/**
 * A careers application as its job carries it. The CV's bytes never go into the job: a checked CV is
 * staged in object storage and only its reference travels. One that cannot be kept does not cost the
 * application; the answer (and the job) say so with `cvUploadFailed`.
 */
export async function careersJobData(
  deps: CvDeps,
  submissionId: string,
  { cvFile: _bytes, ...application }: CareersApplyRequestOutput,
  checkedCv: CheckedCv | undefined,
): Promise<CareersApplyJobDataOutput> {
  const cv = await acceptCv(deps, submissionId, checkedCv);
  return {
    ...application,
    ...(cv.stagedCv ? { stagedCv: cv.stagedCv } : {}),
    ...(cv.cvUploadFailed ? { cvUploadFailed: true } : {}),
  };
}
