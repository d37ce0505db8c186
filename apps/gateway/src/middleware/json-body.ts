import bodyParser from 'koa-bodyparser';
import type { Context, Next } from 'koa';
import { ApiError } from '../errors.ts';

/**
 * JSON bodies only, with a size limit chosen per route. Anything else is a 415 before a byte is read;
 * a body over the limit is a 413 (raw-body checks Content-Length first, then counts).
 */
export function jsonBody({ limit }: { limit: string }) {
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
    const type = ctx.request.type;
    if (type !== 'application/json' && !/^application\/[\w.+-]+\+json$/.test(type)) {
      throw new ApiError('UNSUPPORTED_MEDIA_TYPE');
    }
    await parse(ctx, next);
  };
}
