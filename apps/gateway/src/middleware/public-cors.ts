import cors from '@koa/cors';
import type { Context, Next } from 'koa';
import { isAdminPath } from './admin-path.ts';

/**
 * Open CORS for the public surface (site forms post from any origin), and none under /admin: a foreign
 * page must not be able to read an admin answer, nor get a preflight through for an admin write. "Under
 * /admin" is any spelling of it (`/ADMIN/metrics`, `/%61dmin/…`, `//admin/./…`): the admin wing's own test.
 */
export function publicCors() {
  const open = cors({
    origin: '*',
    allowMethods: ['GET', 'HEAD', 'POST', 'PATCH', 'PUT', 'DELETE', 'OPTIONS'],
    allowHeaders: [
      'Content-Type',
      'Accept',
      'Idempotency-Key',
      'Mcp-Protocol-Version',
      'Authorization',
      'X-Request-Id',
    ],
    exposeHeaders: ['X-Request-Id', 'Retry-After'],
    maxAge: 86_400,
  });
  return async function publicCors(ctx: Context, next: Next) {
    if (isAdminPath(ctx.path)) return next();
    return open(ctx, next);
  };
}
