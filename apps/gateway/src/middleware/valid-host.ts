import type { Context, Next } from 'koa';
import { ApiError } from '../errors.ts';

// RFC 3986: an IP literal or a reg-name, then an optional port.
const HOST = /^(?:\[[\dA-Fa-f:.]+\]|[\w\-.~!$&'()*+,;=%]+)(?::\d{0,5})?$/;

/**
 * A request whose Host header is not a host[:port] is a 400, as RFC 9112 (section 3.2) asks. Node's HTTP
 * parser lets one through, and anything that builds a URL from it throws (`Host: bad host` made /api/mcp a
 * 500). Used on the routes that act on a body; no route builds links from Host (they use PUBLIC_BASE_URL).
 */
export function validHost() {
  return async function validHost(ctx: Context, next: Next) {
    checkHost(ctx);
    await next();
  };
}

/** Hosts already found valid: a gateway is reached by a handful of names, so the checks run once each. */
const validHosts = new Set<string>();

/** validHost's check, for a route that calls it directly. */
export function checkHost(ctx: Context): void {
  const host = ctx.get('host');
  if (host === '' || validHosts.has(host)) return;
  if (!(HOST.test(host) && URL.canParse(`http://${host}/`))) throw new ApiError('INVALID_HOST');
  if (validHosts.size >= 1_000) validHosts.clear();
  validHosts.add(host);
}
