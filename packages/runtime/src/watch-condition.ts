import { hostname } from 'node:os';
import type { Cluster, Redis } from 'ioredis';
import type { Logger } from 'pino';

export type ConditionWatch = {
  /** Whether the condition holds (as of the last check that reached Redis). */
  holds: () => boolean;
  /** A check now (after a reconnect, say); the interval makes one anyway. */
  check: () => Promise<void>;
  close: () => Promise<void>;
};

/**
 * A condition of this process that the others must see (its shared secret differs from the recorded one; it
 * holds every delivery for want of ERASURE_KEY), asked of `probe` at start and every `everyMs`. While it
 * holds, this process's id is in the sorted set `members`, scored by when its word expires (`ttlMs`,
 * refreshed at each check; gone with the process), which the gateway's /readyz and metrics and `ops status`
 * read; `begins` is logged once when it starts to hold, `ends` when it stops. `probe` answers true (holds),
 * false (does not) or undefined (no news). Redis away: the last answer stands, and the next check tries again.
 */
export async function watchCondition({
  redis,
  members,
  probe,
  begins,
  ends,
  logger,
  ttlMs,
  everyMs = ttlMs / 3,
}: {
  redis: Redis | Cluster;
  members: string;
  probe: () => Promise<boolean | undefined>;
  begins: string;
  ends?: string;
  logger: Logger;
  ttlMs: number;
  everyMs?: number;
}): Promise<ConditionWatch> {
  const id = `${hostname()}:${process.pid}`;
  let holds = false;
  async function check() {
    try {
      const now = await probe();
      if (now === true) {
        await redis.zadd(members, Date.now() + ttlMs, id);
        if (!holds) logger.error(begins);
        holds = true;
      } else if (now === false && holds) {
        await redis.zrem(members, id);
        if (ends) logger.info(ends);
        holds = false;
      }
    } catch {
      // Redis away: the last answer stands; the next check says it again.
    }
  }
  await check();
  const timer = setInterval(() => void check(), everyMs);
  timer.unref();
  return {
    holds: () => holds,
    check,
    async close() {
      clearInterval(timer);
      if (holds) await redis.zrem(members, id).catch(() => {});
    },
  };
}
