import type { Context, Next } from 'koa';

const SAFE = new Set(['GET', 'HEAD', 'OPTIONS']);

/**
 * Bull Board's writes (retry, remove, promote, clean, pause) must not be reachable from another site.
 * The token is not enough on its own: once an operator has typed it into the browser's Basic prompt, the
 * browser attaches it to every request to this origin, a foreign page's form POST included. So a write
 * is refused (403) when the browser says it comes from elsewhere: `Sec-Fetch-Site` other than
 * same-origin or none, or an `Origin` that is not ours (`null` included). Tools without a browser send
 * neither header and need the bearer token. Reads stay allowed cross-site (a link in a chat opens the
 * board) but carry no CORS, so a foreign page cannot read them; framing is refused for every admin page,
 * since clicks inside a frame would be same-origin.
 */
export function refuseCrossSite() {
  return async function refuseCrossSite(ctx: Context, next: Next) {
    ctx.set('X-Frame-Options', 'DENY');
    ctx.set('Content-Security-Policy', "frame-ancestors 'none'");
    ctx.set('Cache-Control', 'no-store');
    ctx.set('X-Content-Type-Options', 'nosniff');
    if (!SAFE.has(ctx.method)) {
      const site = ctx.get('sec-fetch-site');
      const origin = ctx.get('origin');
      if ((site && site !== 'same-origin' && site !== 'none') || (origin && !isOurOrigin(ctx, origin))) {
        ctx.status = 403;
        ctx.body = { error: 'FORBIDDEN_ORIGIN', message: 'Admin writes are accepted from this origin only.' };
        return;
      }
    }
    return next();
  };
}

/**
 * Our own origin is this host, over the protocol the request came by or over https. Koa 3's `ctx.origin`
 * answers the request's Origin header when there is one, which would make every origin look like ours, so
 * it is built from the host. https as well: behind a proxy that ends TLS, without TRUST_PROXY (which
 * clients must not be able to spoof on a gateway reached directly), the request looks like plain http
 * while the operator's page, and so its Origin, is https://host; the board's own writes were refused 403.
 * The same host over a stronger scheme is no other site.
 */
function isOurOrigin(ctx: Context, origin: string): boolean {
  return origin === `${ctx.protocol}://${ctx.host}` || origin === `https://${ctx.host}`;
}
