import { withDeadline } from '@forms/quarantine';
import { scoreSpam, spamFeatures, startingSpamModel, withLearned } from '@forms/spam-filter';
import type { Cluster, Redis } from 'ioredis';
import type { Logger } from 'pino';
import type { ContentFilter } from './judge-submission.ts';

/** Tuned on the SpamAssassin `spam-1`/`easy-ham-1` folders (`pnpm bench:spam-filter`, docs/benchmarks.md). */
export const DEFAULT_FILTER_THRESHOLD = 0.9;
/** Labels of each kind (spam, ham) this deployment must teach before the filter's flag holds a submission alone. */
export const DEFAULT_MIN_LABELS = 20;

/**
 * The learning content filter: the starting model plus what ops taught it (the `spamModel` hash, written by
 * `ops spam mark` and `release`), read from Redis every `refreshMs` in the background, never on a request:
 * scoring is in memory (features of the free text, hashed; a naive Bayes score). Nothing leaves the machine.
 * Stops reading when `redis` ends (the worker stopping).
 *
 * Its flag weighs half (held only with another half: a throwaway address, links, a scored challenge failed)
 * until this deployment has taught it `minLabels` spam and `minLabels` ham: the corpus's ham is 2002's
 * technical mailing lists, and it scores a marketing agency's ordinary enquiries as spam (docs/benchmarks.md).
 */
export function createContentFilter({
  redis,
  modelKey,
  threshold,
  minLabels,
  refreshMs,
  timeoutMs,
  logger,
}: {
  redis: Redis | Cluster;
  modelKey: string;
  threshold: number;
  minLabels: number;
  refreshMs: number;
  timeoutMs: number;
  logger?: Logger | undefined;
}): ContentFilter {
  const start = startingSpamModel();
  let model = start;
  let weight = 0.5;
  // What the model was last made from: an unchanged hash (the usual case) makes nothing again, where each
  // rebuild copies the starting model's twelve thousand features.
  let madeFrom = '{}';
  async function refresh() {
    try {
      const learned = await withDeadline(redis.hgetall(modelKey), timeoutMs);
      const read = JSON.stringify(learned);
      if (read !== madeFrom) {
        model = withLearned(start, learned);
        madeFrom = read;
      }
      const taught = Math.min(Number(learned['docs:spam'] ?? 0), Number(learned['docs:ham'] ?? 0));
      weight = taught >= minLabels ? 1 : 0.5;
    } catch (err) {
      // Redis away: the model in hand stays; the next refresh tries again.
      logger?.debug({ err }, 'spam model not refreshed');
    }
  }
  void refresh();
  const timer = setInterval(refresh, refreshMs);
  timer.unref();
  redis.once('end', () => clearInterval(timer));
  return { threshold, score: (texts) => scoreSpam(model, spamFeatures(texts)), weight: () => weight };
}
