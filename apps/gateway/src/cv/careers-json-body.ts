import type { Context, Next } from 'koa';
import { ApiError } from '../errors.ts';
import { jsonBody } from '../middleware/json-body.ts';

/**
 * careers-apply's body limit: a CV of 5 MiB is about 6.7 MiB in base64, and the other fields add at most
 * a few tens of KiB; 7 MiB leaves room for both and no more. Every other route keeps its small limit.
 */
export const CAREERS_BODY_LIMIT = '7mb';

/** JSON body parsing for careers-apply, where a body over the limit can only mean the CV is too large. */
export function careersJsonBody({ limit = CAREERS_BODY_LIMIT } = {}) {
  const parse = jsonBody({ limit });
  return async function careersJsonBody(ctx: Context, next: Next) {
    try {
      await parse(ctx, next);
    } catch (err) {
      if ((err as { type?: string }).type === 'entity.too.large') throw new ApiError('CV_TOO_LARGE', { field: 'cvFile.data' });
      throw err;
    }
  };
}
