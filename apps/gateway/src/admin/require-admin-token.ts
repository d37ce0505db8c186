import { tokenMatches } from '@forms/observability';
import type { Context, Next } from 'koa';
import { canonicalPath } from '../middleware/admin-path.ts';

/**
 * The one credential of the admin surface, ADMIN_TOKEN, presented as a bearer token (Prometheus, curl,
 * scripts) or as the password of HTTP Basic auth (any user name): a browser cannot add a bearer header
 * to Bull Board's page loads, but it asks for and resends Basic credentials by itself. Never a cookie.
 * Compared in constant time; during a rotation window ADMIN_TOKEN_PREVIOUS is accepted too. A 401 under the wing's browser pages (Bull Board, the spam review) carries a Basic challenge so the
 * browser asks.
 */
const BROWSER_PAGES = ['/admin/queues', '/admin/spam'];

export function requireAdminToken(tokens: readonly (string | undefined)[]) {
  return async function requireAdminToken(ctx: Context, next: Next) {
    if (tokenMatches(presentedToken(ctx.get('authorization')), tokens)) return next();
    ctx.status = 401;
    ctx.set(
      'WWW-Authenticate',
      BROWSER_PAGES.some((prefix) => canonicalPath(ctx.path).startsWith(prefix))
        ? 'Basic realm="forms admin", charset="UTF-8"'
        : 'Bearer realm="forms admin"',
    );
    ctx.body = { error: 'UNAUTHORIZED', message: 'The admin surface needs ADMIN_TOKEN (Authorization: Bearer …).' };
  };
}

function presentedToken(header: string): string | undefined {
  const [scheme, value] = header.split(' ', 2);
  if (!value) return undefined;
  if (/^bearer$/i.test(scheme!)) return value.trim();
  if (/^basic$/i.test(scheme!)) {
    const decoded = Buffer.from(value.trim(), 'base64').toString('utf8');
    const colon = decoded.indexOf(':');
    return colon >= 0 ? decoded.slice(colon + 1) : undefined;
  }
  return undefined;
}
