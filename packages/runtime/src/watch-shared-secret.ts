import type { Cluster, Redis } from 'ioredis';
import type { Logger } from 'pino';
import { checkSharedSecret } from './check-shared-secret.ts';
import { watchCondition } from './watch-condition.ts';

export type SharedSecretWatch = {
  /** Whether this process's secret differs from the recorded one (as of the last check that reached Redis). */
  differs: () => boolean;
  /** Why this process is not ready (its secret differs), or undefined while it agrees. */
  notReady: () => string | undefined;
  /** A check now (after a reconnect, say); the interval makes one anyway. */
  check: () => Promise<void>;
  close: () => Promise<void>;
};

/**
 * Checks a shared secret's value against the recorded one (`checkSharedSecret`) at start and every `everyMs`,
 * so a rekey or a Redis that came back later is seen. While it differs, the process says so in one log line
 * (`reason`, naming the variable, never the secret), is not ready, and keeps its id in `keys.differing`
 * for the gateway's /readyz and metrics and `ops status` (`watchCondition`).
 */
export async function watchSharedSecret({
  redis,
  keys,
  values,
  variable,
  reason,
  logger,
  ttlMs,
  everyMs = ttlMs / 3,
}: {
  redis: Redis | Cluster;
  keys: { check: string; differing: string };
  /** This process's check values: its current secret's first, then a previous one's in a rotation window. */
  values: readonly string[];
  variable: string;
  reason: string;
  logger: Logger;
  ttlMs: number;
  everyMs?: number;
}): Promise<SharedSecretWatch> {
  const watch = await watchCondition({
    redis,
    members: keys.differing,
    async probe() {
      const outcome = await checkSharedSecret(redis, { key: keys.check, values });
      if (outcome === 'recorded') logger.info(`recorded the ${variable} check value in Redis (the first process to)`);
      return outcome === 'differs';
    },
    begins: reason,
    ends: `${variable} now agrees with the recorded one`,
    logger,
    ttlMs,
    everyMs,
  });
  return {
    differs: watch.holds,
    notReady: () => (watch.holds() ? reason : undefined),
    check: watch.check,
    close: watch.close,
  };
}
