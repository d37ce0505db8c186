import { createQuarantine } from '@forms/quarantine';
import { opsKeys } from '@forms/schemas';
import type { SpamCounters } from '@forms/spam-filter';
import type { Cluster, Redis } from 'ioredis';
import type { Logger } from 'pino';
import type { WorkerConfig } from '../config.ts';
import type { JudgeDeps } from '../handlers/judge-job.ts';
import { createContentFilter } from './content-filter.ts';
import { createSpamJudge } from './judge-submission.ts';

/**
 * Bounds the judge's own Redis calls (the model's refresh, the hold): past it a refresh keeps the model in
 * hand, and a hold fails the attempt, retried on the job's backoff with its inputs still on it.
 */
const JUDGE_REDIS_TIMEOUT_MS = 5_000;

/** The worker's judge: the spam layers configured (config.spam), the quarantine they hold into, their counters. */
export function createJudge({
  config,
  redis,
  counters,
  logger,
}: {
  config: WorkerConfig;
  redis: Redis | Cluster;
  counters: SpamCounters;
  logger: Logger;
}): JudgeDeps {
  const { spam } = config;
  return {
    counters,
    hold: createQuarantine(redis, config.redis, config.queueName, {
      ...spam.quarantine,
      timeoutMs: JUDGE_REDIS_TIMEOUT_MS,
    }),
    judge: createSpamJudge({
      rules: spam.rules,
      challenge: spam.challenge,
      filter: spam.filter
        ? createContentFilter({
            redis,
            modelKey: opsKeys(config.redis, config.queueName).spamModel,
            threshold: spam.filter.threshold,
            refreshMs: spam.filter.refreshMs,
            timeoutMs: JUDGE_REDIS_TIMEOUT_MS,
            logger,
          })
        : undefined,
      akismet: spam.akismet,
      counters,
      logger,
    }),
  };
}
