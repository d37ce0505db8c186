import cors from '@koa/cors';
import type { Context, Next } from 'koa';
import { isAdminPath } from './admin-path.ts';

const EXPOSE_HEADERS = ['X-Request-Id', 'Retry-After'].join(',');

/** The public surface's CORS, as @koa/cors takes it (a preflight's answer is @koa/cors's own). */
export const PUBLIC_CORS_OPTIONS: cors.Options = {
  origin: '*',
  allowMethods: ['GET', 'HEAD', 'POST', 'PATCH', 'PUT', 'DELETE', 'OPTIONS'],
  allowHeaders: [
    'Content-Type',
    'Accept',
    'Idempotency-Key',
    'Mcp-Protocol-Version',
    'Authorization',
    'X-Request-Id',
    // An agent's declaration (the MCP contact form widget sends it): the spam layers ask it no challenge.
    'Forms-Agent',
  ],
  exposeHeaders: EXPOSE_HEADERS,
  maxAge: 86_400,
};

/**
 * Open CORS for the public surface (site forms post from any origin), and none under /admin: a foreign
 * page must not be able to read an admin answer, nor get a preflight through for an admin write. "Under
 * /admin" is any spelling of it (`/ADMIN/metrics`, `/%61dmin/…`, `//admin/./…`): the admin wing's own test.
 *
 * A preflight (OPTIONS) goes through @koa/cors. Any other request gets what @koa/cors gives it with these
 * options, set here directly: `Vary: Origin`, `Access-Control-Allow-Origin: *` and the exposed headers
 * (with or without an `Origin`), and the same headers on an error that escapes the error handler. That is
 * every submission: @koa/cors's own path, with its header bookkeeping and an extra promise, cost more than
 * the three headers.
 */
export function publicCors() {
  const open = cors(PUBLIC_CORS_OPTIONS);
  return function publicCors(ctx: Context, next: Next) {
    if (isAdminPath(ctx.path)) return next();
    if (ctx.method === 'OPTIONS') return open(ctx, next);
    // No middleware before this one sets Vary, so it is set, not appended to (`ctx.vary` parses what is there).
    ctx.set('Vary', 'Origin');
    ctx.set('Access-Control-Allow-Origin', '*');
    ctx.set('Access-Control-Expose-Headers', EXPOSE_HEADERS);
    return next().catch(withCorsHeaders);
  };
}

/** As @koa/cors does for an error it sees: its headers go with the error, for Koa's own error answer. */
function withCorsHeaders(err: { headers?: Record<string, string> }): never {
  const { Vary: upper, vary: lower, ...rest } = err.headers ?? {};
  const prior = lower ?? upper ?? '';
  const vary = /(^|,)\s*(origin|\*)\s*(,|$)/i.test(prior) ? prior : prior ? `${prior}, Origin` : 'Origin';
  err.headers = { ...rest, 'Access-Control-Allow-Origin': '*', 'Access-Control-Expose-Headers': EXPOSE_HEADERS, vary };
  throw err;
}
