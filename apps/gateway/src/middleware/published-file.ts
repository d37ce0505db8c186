import type { Context } from 'koa';
import type { PublishedFile } from '../content/site.ts';

/** Discovery files change only with a deploy: an hour in caches, then revalidated by ETag. */
export const PUBLISHED_CACHE_CONTROL = 'public, max-age=3600';

/** Sends a file rendered at start-up, with its ETag; a matching If-None-Match gets 304. */
export function sendPublished(ctx: Context, file: PublishedFile) {
  ctx.set('ETag', file.etag);
  ctx.set('Cache-Control', PUBLISHED_CACHE_CONTROL);
  ctx.set('X-Content-Type-Options', 'nosniff');
  if (file.csp) ctx.set('Content-Security-Policy', file.csp);
  ctx.status = 200;
  if (ctx.fresh) {
    ctx.status = 304;
    return;
  }
  ctx.type = file.contentType;
  ctx.body = file.body;
}
