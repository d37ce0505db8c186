import type { Context } from 'koa';
import type { PublishedFile } from './content/site.ts';

/** Discovery files change only with a deploy: an hour in caches, then revalidated by ETag. */
const PUBLISHED_CACHE_CONTROL = 'public, max-age=3600';

/**
 * If-None-Match per RFC 9110 (weak comparison, `*` matches). Koa's `ctx.fresh` is not used: it says
 * "not fresh" whenever the request carries `Cache-Control: no-cache`, which fetch() adds to every
 * conditional request, though that directive is addressed to caches, not to the origin.
 */
function matchesIfNoneMatch(header: string, etag: string): boolean {
  if (!header) return false;
  if (header.trim() === '*') return true;
  const bare = (tag: string) => tag.trim().replace(/^W\//, '');
  return header.split(',').some((tag) => bare(tag) === bare(etag));
}

/** Sends a file rendered at start-up, with its ETag; a matching If-None-Match gets 304. */
export function sendPublished(ctx: Context, file: PublishedFile) {
  ctx.set('ETag', file.etag);
  ctx.set('Cache-Control', PUBLISHED_CACHE_CONTROL);
  ctx.set('X-Content-Type-Options', 'nosniff');
  if (file.csp) ctx.set('Content-Security-Policy', file.csp);
  if (matchesIfNoneMatch(ctx.get('If-None-Match'), file.etag)) {
    ctx.status = 304;
    return;
  }
  ctx.type = file.contentType;
  ctx.body = file.body;
}
