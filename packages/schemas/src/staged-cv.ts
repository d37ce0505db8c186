import * as v from 'valibot';
import { CV_CONTENT_TYPES, CV_MAX_BYTES } from './careers-apply.ts';

/**
 * What a careers job carries instead of the CV's bytes: where the gateway staged the checked file in object
 * storage and what it found there. A few hundred bytes per job, whatever the CV's size, so a launch-day
 * burst of applications cannot fill Redis.
 */
export const StagedCvSchema = v.object({
  key: v.pipe(
    v.string(),
    v.regex(/^incoming\/cv\/[\w-]+\.(pdf|doc|docx)$/),
    v.description('Staging object key, chosen by the gateway'),
  ),
  filename: v.pipe(
    v.string(),
    v.minLength(1),
    v.maxLength(255),
    v.description("The client's original file name; metadata only"),
  ),
  contentType: v.pipe(v.picklist(CV_CONTENT_TYPES), v.description('The type the bytes were checked to be')),
  size: v.pipe(
    v.number(),
    v.integer(),
    v.minValue(1),
    v.maxValue(CV_MAX_BYTES),
    v.description('Decoded size in bytes'),
  ),
  sha256: v.pipe(v.string(), v.regex(/^[0-9a-f]{64}$/), v.description('SHA-256 of the bytes, lower-case hex')),
});
export type StagedCv = v.InferOutput<typeof StagedCvSchema>;
