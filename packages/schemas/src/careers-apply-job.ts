import * as v from 'valibot';
import { CareersApplyRequestSchema } from './careers-apply.ts';
import { StagedCvSchema } from './staged-cv.ts';

/**
 * A CV's bytes never travel in a job: careers jobs carry the application without `cvFile`, and at most a
 * reference to the copy the gateway staged in object storage. Both added fields are optional, so
 * careers-apply.v1 jobs queued before they existed still parse (no new versioned name needed).
 */
export const CareersApplyJobDataSchema = v.object({
  ...v.omit(CareersApplyRequestSchema, ['cvFile']).entries,
  stagedCv: v.optional(StagedCvSchema),
  cvUploadFailed: v.optional(
    v.pipe(
      v.boolean(),
      v.description('A CV was sent and passed its checks but could not be kept; the application stands'),
    ),
  ),
});
export type CareersApplyJobDataOutput = v.InferOutput<typeof CareersApplyJobDataSchema>;
