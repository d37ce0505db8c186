import Router from '@koa/router';
import type { Logger } from 'pino';
import { ApiError } from '../../errors.ts';
import { errorStyle } from '../../middleware/error-handler.ts';
import { methodNotAllowed } from '../../middleware/method-not-allowed.ts';
import type { LatestVideoSource } from './latest-video-cache.ts';
import { FeedFormatError } from './video-feed.ts';

const HOUR_S = 3600;
/** A stale answer is kept by caches only briefly, so the edge asks again soon after the feed recovers. */
const STALE_MAX_AGE_S = 60;

/** GET /api/latest-video. `source` is undefined when neither YOUTUBE_CHANNEL_ID nor VIDEO_FEED_URL is set. */
export function latestVideoRoutes({
  source,
  logger,
}: {
  source: LatestVideoSource | undefined;
  logger: Logger;
}): Router {
  const router = new Router();
  router.get('/api/latest-video', errorStyle('simple'), async function latestVideo(ctx) {
    if (!source)
      throw new ApiError('VIDEO_FEED_UNAVAILABLE', {
        detail: 'is not configured on this server, so there is no video to show',
      });
    let answer: Awaited<ReturnType<typeof source.get>>;
    try {
      answer = await source.get();
    } catch (err) {
      logger.warn({ err }, 'latest-video: feed failed and nothing is cached');
      throw new ApiError('VIDEO_FEED_UNAVAILABLE', {
        detail:
          err instanceof FeedFormatError
            ? 'answered with something that is not a readable video feed; retry later'
            : 'could not be reached; retry with exponential backoff',
      });
    }
    if (answer.state === 'fresh') {
      // What is left of the hour, so an edge cache never holds an answer longer than the server would.
      const left = Math.max(1, HOUR_S - Math.floor(answer.ageMs / 1000));
      ctx.set('Cache-Control', `public, max-age=${left}, s-maxage=${left}`);
    } else {
      ctx.set('Cache-Control', `public, max-age=${STALE_MAX_AGE_S}, s-maxage=${STALE_MAX_AGE_S}`);
      ctx.set('Warning', '110 - "Response is stale"');
    }
    ctx.body = answer.video;
  });
  router.all('/api/latest-video', errorStyle('simple'), methodNotAllowed(['GET', 'HEAD']));
  return router;
}
