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
      // Our own origin from protocol and host: Koa 3's `ctx.origin` answers the request's Origin header
      // when there is one, which would make every origin look like ours.
      const ours = `${ctx.protocol}://${ctx.host}`;
      if ((site && site !== 'same-origin' && site !== 'none') || (origin && origin !== ours)) {
        ctx.status = 403;
        ctx.body = { error: 'FORBIDDEN_ORIGIN', message: 'Admin writes are accepted from this origin only.' };
        return;
      }
    }
    return next();
  };
}
