import { BODY_LIMITS, type ErrorCode } from '@forms/schemas';
import type { Context, Next } from 'koa';
import bodyParser from 'koa-bodyparser';
import { ApiError } from '../errors.ts';

/** `application/<anything>+json`, which the JSON parser also takes. */
const JSON_SUFFIX_TYPE = /^application\/[\w.+-]+\+json$/;

/** What a body over the limit is answered with on a route, when not the generic PAYLOAD_TOO_LARGE. */
export type TooLarge = { code: ErrorCode; field?: string };

/** True when `value` nests deeper than `max`; iterative, so depth cannot overflow it. */
export function nestsDeeperThan(value: unknown, max: number): boolean {
  const stack: [unknown, number][] = [[value, 1]];
  while (stack.length > 0) {
    const [node, depth] = stack.pop()!;
    if (node === null || typeof node !== 'object') continue;
    if (depth > max) return true;
    for (const child of Object.values(node)) stack.push([child, depth + 1]);
  }
  return false;
}

/**
 * JSON bodies only, with a size limit chosen per route. Anything else is a 415 before a byte is read, and
 * so is a compressed body: browsers never compress request bodies, ours are at most a few KiB (a CV is
 * already compressed), and a body we never inflate can be neither corrupt (zlib errors were 500s) nor a zip
 * bomb. A body over the limit is a 413 (raw-body checks Content-Length first, then counts):
 * PAYLOAD_TOO_LARGE, or the route's own `tooLarge` (careers-apply, where only the CV can be that large),
 * which the error handler reads from `ctx.state`. `__proto__` keys are removed at any depth while parsing
 * (unknown fields, dropped like the rest), and a body nested deeper than BODY_LIMITS.depth is a 400.
 */
export function jsonBody({ limit, tooLarge }: { limit: number; tooLarge?: TooLarge }) {
  const parse = bodyParser({
    enableTypes: ['json'],
    extendTypes: { json: ['application/json', 'application/*+json'] },
    jsonLimit: `${limit}b`,
    strict: true,
    // Passed through to co-body (@hapi/bourne): drop `__proto__` keys instead of failing the parse.
    ...({ onProtoPoisoning: 'remove' } as object),
    onerror: (err) => {
      throw err;
    },
  });
  return async function jsonBody(ctx: Context, next: Next) {
    if (tooLarge) ctx.state.tooLarge = tooLarge;
    const type = ctx.request.type;
    if (type !== 'application/json' && !JSON_SUFFIX_TYPE.test(type)) {
      throw new ApiError('UNSUPPORTED_MEDIA_TYPE');
    }
    const encoding = ctx.get('content-encoding').trim().toLowerCase();
    if (encoding !== '' && encoding !== 'identity') {
      throw new ApiError('UNSUPPORTED_MEDIA_TYPE', {
        detail: `Send the body uncompressed: "Content-Encoding: ${encoding.slice(0, 40)}" is not accepted`,
        headers: { 'Accept-Encoding': 'identity' },
      });
    }
    await parse(ctx, async () => {
      if (nestsDeeperThan(ctx.request.body, BODY_LIMITS.depth)) {
        throw new ApiError('INVALID_JSON', {
          detail: `is nested more than ${BODY_LIMITS.depth} levels deep; send a flat JSON object`,
        });
      }
      await next();
    });
  };
}
