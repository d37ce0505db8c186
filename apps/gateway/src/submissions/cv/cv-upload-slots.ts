import type { Context, Next } from 'koa';
import { ApiError } from '../../errors.ts';

/** Seconds a client is told to wait when every CV slot is taken: an upload takes well under that. */
const CV_BUSY_RETRY_AFTER_SECONDS = 2;

/**
 * Caps the careers requests that may carry a CV in flight at once. Each holds several copies of up to
 * 7 MiB while it is read, parsed, decoded and staged (the raw body, the parsed string, the decoded bytes),
 * so twenty at once cost hundreds of MiB; past `max`, the answer is a quick 503 with Retry-After, before a
 * byte of the body is read. Bodies that declare a small length cannot hold a CV and never wait for a slot.
 */
export function cvUploadSlots({ max, smallBodyBytes }: { max: number; smallBodyBytes: number }) {
  let active = 0;
  return async function cvUploadSlots(ctx: Context, next: Next) {
    const declared = ctx.get('content-length');
    if (declared !== '' && Number(declared) <= smallBodyBytes) return next();
    if (active >= max) {
      throw new ApiError('CV_UPLOADS_BUSY', { headers: { 'Retry-After': String(CV_BUSY_RETRY_AFTER_SECONDS) } });
    }
    active++;
    try {
      await next();
    } finally {
      active--;
    }
  };
}
