import type { LatestVideo } from '@forms/schemas';
import { fetchFeed, parseLatestVideo } from './video-feed.ts';

type LatestVideoAnswer = { video: LatestVideo; state: 'fresh' | 'stale'; ageMs: number };

export type LatestVideoSource = {
  /** The latest video: cached for `ttlMs`, refetched after, the last good one if the refetch fails. */
  get(): Promise<LatestVideoAnswer>;
};

/**
 * A per-process cache in front of the feed. Each gateway fetches at most once per `ttlMs` (plus once per
 * `retryMs` while the feed is failing); concurrent requests share one fetch. No Redis: the feed is public
 * and cheap, and a cold cache costs one request per process per hour.
 */
export function createLatestVideoSource({
  feedUrl,
  fetch = globalThis.fetch,
  clock = Date.now,
  ttlMs = 60 * 60_000,
  retryMs = 60_000,
  timeoutMs = 5_000,
}: {
  feedUrl: string;
  fetch?: typeof globalThis.fetch;
  clock?: () => number;
  ttlMs?: number;
  retryMs?: number;
  timeoutMs?: number;
}): LatestVideoSource {
  let good: { video: LatestVideo; at: number } | undefined;
  let failedAt: number | undefined;
  let failure: unknown;
  let inflight: Promise<void> | undefined;

  async function refresh() {
    try {
      good = { video: parseLatestVideo(await fetchFeed(feedUrl, { fetch, timeoutMs })), at: clock() };
      failedAt = undefined;
    } catch (err) {
      failedAt = clock();
      failure = err;
    }
  }

  return {
    async get() {
      const now = clock();
      const fresh = good && now - good.at < ttlMs;
      const backingOff = failedAt !== undefined && now - failedAt < retryMs;
      if (!fresh && !backingOff) {
        inflight ??= refresh().finally(() => (inflight = undefined));
        await inflight;
      }
      if (good && clock() - good.at < ttlMs) return { video: good.video, state: 'fresh', ageMs: clock() - good.at };
      if (good) return { video: good.video, state: 'stale', ageMs: clock() - good.at };
      throw failure ?? new Error('feed could not be read');
    },
  };
}
