import type { Context, Next } from 'koa';
import { ApiError } from '../../errors.ts';

/** Seconds a client is told to wait when every CV slot is taken: an upload takes well under that. */
const CV_BUSY_RETRY_AFTER_SECONDS = 2;

/**
 * Caps the careers requests that may carry a CV in flight at once. Each holds several copies of up to
 * 7 MiB while it is read, parsed, decoded and staged (the raw body, the parsed string, the decoded bytes),
 * so twenty at once cost hundreds of MiB; past `max`, the answer is a quick 503 with Retry-After, before a
 * byte of the body is read. Bodies that declare a small length cannot hold a CV and never wait for a slot.
 *
 * One client address holds at most `perClient` of them (the same 503 past it), so one client cannot take
 * every slot; and a slot is held only while the body keeps arriving (the route's read deadline and minimum
 * rate, `readBody`'s `pace`). The addresses in the map are those with a slot now: at most `max` entries.
 */
export function cvUploadSlots({
  max,
  perClient,
  smallBodyBytes,
}: {
  max: number;
  perClient: number;
  smallBodyBytes: number;
}) {
  let active = 0;
  const byClient = new Map<string, number>();
  return async function cvUploadSlots(ctx: Context, next: Next) {
    const declared = ctx.get('content-length');
    if (declared !== '' && Number(declared) <= smallBodyBytes) return next();
    const client = ctx.ip;
    const held = byClient.get(client) ?? 0;
    if (active >= max || held >= perClient) {
      throw new ApiError('CV_UPLOADS_BUSY', { headers: { 'Retry-After': String(CV_BUSY_RETRY_AFTER_SECONDS) } });
    }
    active++;
    byClient.set(client, held + 1);
    try {
      await next();
    } finally {
      active--;
      const left = (byClient.get(client) ?? 1) - 1;
      if (left > 0) byClient.set(client, left);
      else byClient.delete(client);
    }
  };
}
