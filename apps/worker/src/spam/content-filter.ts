import { withDeadline } from '@forms/quarantine';
import { filterFlag, scoreSpam, spamFeatures, startingSpamModel, withLearned } from '@forms/spam-filter';
import type { Cluster, Redis } from 'ioredis';
import type { Logger } from 'pino';
import type { ContentFilter } from './judge-submission.ts';

/** The spam cutoff: tuned on the SpamAssassin `spam-1`/`easy-ham-1` folders (`pnpm bench:spam-filter`, docs/benchmarks.md). */
export const DEFAULT_FILTER_THRESHOLD = 0.9;
/** The ham cutoff: from here to the threshold a score is unsure and counts half (docs/benchmarks.md#spam-filter). */
export const DEFAULT_FILTER_UNSURE = 0.5;

/**
 * The learning content filter: the starting model plus what ops taught it (the `spamModel` hash, written by
 * `ops spam mark` and `release`), read from Redis every `refreshMs` in the background, never on a request:
 * scoring is in memory (features of the free text and the sender's domain, hashed; a naive Bayes score).
 * Nothing leaves the machine. Stops reading when `redis` ends (the worker stopping).
 */
export function createContentFilter({
  redis,
  modelKey,
  threshold,
  refreshMs,
  timeoutMs,
  logger,
}: {
  redis: Redis | Cluster;
  modelKey: string;
  threshold: number;
  refreshMs: number;
  timeoutMs: number;
  logger?: Logger | undefined;
}): ContentFilter {
  const start = startingSpamModel();
  let model = start;
  // What the model was last made from: an unchanged hash (the usual case) makes nothing again, where each
  // rebuild copies the starting model's features.
  let madeFrom = '{}';
  async function refresh() {
    try {
      const learned = await withDeadline(redis.hgetall(modelKey), timeoutMs);
      const read = JSON.stringify(learned);
      if (read !== madeFrom) {
        model = withLearned(start, learned);
        madeFrom = read;
      }
    } catch (err) {
      // Redis away: the model in hand stays; the next refresh tries again.
      logger?.debug({ err }, 'spam model not refreshed');
    }
  }
  void refresh();
  const timer = setInterval(refresh, refreshMs);
  timer.unref();
  redis.once('end', () => clearInterval(timer));
  return {
    score: (texts, email) => scoreSpam(model, spamFeatures(texts, email)),
    flag: (score) => filterFlag(score, { threshold, unsure: DEFAULT_FILTER_UNSURE }),
  };
}
