import bodyParser from 'koa-bodyparser';
import type { Context, Next } from 'koa';
import type { ErrorCode } from '@forms/schemas';
import { ApiError } from '../errors.ts';

/** What a body over the limit is answered with on a route, when not the generic PAYLOAD_TOO_LARGE. */
export type TooLarge = { code: ErrorCode; field?: string };

/**
 * JSON bodies only, with a size limit chosen per route. Anything else is a 415 before a byte is read;
 * a body over the limit is a 413 (raw-body checks Content-Length first, then counts): PAYLOAD_TOO_LARGE,
 * or the route's own `tooLarge` (careers-apply, where only the CV can be that large), which the error
 * handler reads from `ctx.state`.
 */
export function jsonBody({ limit, tooLarge }: { limit: string; tooLarge?: TooLarge }) {
  const parse = bodyParser({
    enableTypes: ['json'],
    extendTypes: { json: ['application/json', 'application/*+json'] },
    jsonLimit: limit,
    strict: true,
    onerror: (err) => {
      throw err;
    },
  });
  return async function jsonBody(ctx: Context, next: Next) {
    if (tooLarge) ctx.state.tooLarge = tooLarge;
    const type = ctx.request.type;
    if (type !== 'application/json' && !/^application\/[\w.+-]+\+json$/.test(type)) {
      throw new ApiError('UNSUPPORTED_MEDIA_TYPE');
    }
    await parse(ctx, next);
  };
}
