import type { ObjectStorage } from '@forms/object-storage';
import { withSpan } from '@forms/observability';
import type { JobPayload } from '@forms/schemas';
import type { Job } from 'bullmq';
import type { Logger } from 'pino';
import type { DeliveredSubmission } from '../crm/crm.ts';
import { CvLostError, finaliseCv, removeStagedCv } from '../storage/finalise-cv.ts';
import { presignCv } from '../storage/presign-cv.ts';

export type CvDeps = { storage: ObjectStorage | undefined; urlTtlSeconds: number; logger?: Logger | undefined };

/**
 * The careers path's CV step, before the CRM write: finalise the staged CV and hand the CRM its link.
 * Storage trouble throws, so the job retries on its backoff and the CRM write waits for the CV. But the
 * application is never lost for its attachment: when the CV is gone for good, or on the job's last
 * attempt, the application is delivered without it and marked `cvUploadFailed` (the staged reference
 * stays in the payload, for ops to recover by hand).
 */
export async function attachCv(job: Job, submission: JobPayload, deps: CvDeps): Promise<DeliveredSubmission> {
  if (submission.kind !== 'careers-apply' || !submission.data.stagedCv) return submission;
  const staged = submission.data.stagedCv;
  try {
    if (!deps.storage) throw new Error('A staged CV needs object storage, but S3_BUCKET is not set for the worker');
    const storage = deps.storage;
    const key = await withSpan('cv.finalise', { attributes: { 'cv.bytes': staged.size } }, () =>
      finaliseCv(storage, submission.submissionId, staged),
    );
    const { url, expiresAt } = await presignCv(deps.storage, key, deps.urlTtlSeconds);
    return {
      ...submission,
      cv: {
        bucket: deps.storage.bucket,
        key,
        filename: staged.filename,
        contentType: staged.contentType,
        size: staged.size,
        sha256: staged.sha256,
        url,
        urlExpiresAt: expiresAt,
      },
    };
  } catch (err) {
    const lastAttempt = job.attemptsMade + 1 >= (job.opts.attempts ?? 1);
    if (!(err instanceof CvLostError) && !lastAttempt) throw err;
    deps.logger?.error(
      { err, jobId: job.id, stagedKey: staged.key },
      'CV could not be kept; delivering the application without it',
    );
    return { ...submission, data: { ...submission.data, cvUploadFailed: true } };
  }
}

/** After the CRM links the final copy, the staging copy can go. Never fails the job: a leftover is harmless. */
export async function dropStagedCv(submission: DeliveredSubmission, deps: CvDeps): Promise<void> {
  if (!submission.cv || !deps.storage || submission.kind !== 'careers-apply' || !submission.data.stagedCv) return;
  try {
    await removeStagedCv(deps.storage, submission.data.stagedCv);
  } catch (err) {
    deps.logger?.warn(
      { err, stagedKey: submission.data.stagedCv.key },
      'staged CV not removed; a lifecycle rule on incoming/ will',
    );
  }
}
