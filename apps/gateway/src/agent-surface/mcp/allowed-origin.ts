import type { Context, Next } from 'koa';
import { ApiError } from '../../errors.ts';

/** Local development: any port on the loopback names (the MCP Inspector, a dev server). */
export const LOCAL_DEV_ORIGINS = ['http://localhost:*', 'http://127.0.0.1:*', 'http://[::1]:*', 'https://localhost:*'];

/**
 * Matches an Origin against entries that are an exact origin, `https://*.example.com` (any subdomain)
 * or `http://host:*` (any port). Anything else, the opaque origin "null" included, does not match.
 */
export function originMatcher(entries: string[]): (origin: string) => boolean {
  const tests = entries.map((entry) => {
    const wildHost = /^(https?):\/\/\*\.(.+)$/.exec(entry);
    if (wildHost)
      return (o: URL) => o.protocol === `${wildHost[1]}:` && o.hostname.endsWith(`.${wildHost[2]}`) && !o.port;
    const wildPort = /^(https?):\/\/(.+):\*$/.exec(entry);
    if (wildPort) return (o: URL) => o.protocol === `${wildPort[1]}:` && o.host.replace(/:\d+$/, '') === wildPort[2];
    const exact = new URL(entry).origin;
    return (o: URL) => o.origin === exact;
  });
  return (origin) => {
    let url: URL;
    try {
      url = new URL(origin);
    } catch {
      return false;
    }
    // An Origin header is scheme://host[:port] and nothing more; reject anything with a path or credentials.
    if (url.origin !== origin) return false;
    return tests.some((test) => test(url));
  };
}

/**
 * Browsers send Origin on cross-site requests; one from a site we do not know is refused with 403, which
 * stops a web page from driving the endpoint through a visitor's browser (DNS rebinding included).
 * Requests without Origin (servers, CLI clients) pass.
 */
export function allowedOrigin(isAllowed: (origin: string) => boolean) {
  return async function allowedOrigin(ctx: Context, next: Next) {
    const origin = ctx.get('Origin');
    if (origin && !isAllowed(origin)) throw new ApiError('FORBIDDEN_ORIGIN');
    await next();
  };
}
