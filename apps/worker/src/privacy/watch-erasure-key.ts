import { hostname } from 'node:os';
import { erasureKeys, KEYLESS_WORKER_TTL_MS, type RedisSettings } from '@forms/schemas';
import type { Logger } from 'pino';
import type { WorkerRedis } from '../create-worker-redis.ts';

export type ErasureKeyWatch = {
  /** Why this worker is not ready (it holds every delivery), or undefined while it can deliver. */
  notReady: () => string | undefined;
  close: () => Promise<void>;
};

/**
 * A worker without ERASURE_KEY cannot check tombstones: once an erasure is recorded it holds every job
 * (`createErasureCheck`). Holding them is right; holding them silently is not. This says so in one line
 * when it starts (or when the first erase is recorded later), makes the worker not ready, and keeps its id
 * in `erasure-keyless-workers` (refreshed; gone with the worker) so the gateway's /readyz and metrics and
 * `ops status` say it too. A worker with the key does nothing here.
 */
export async function watchErasureKey({
  redis,
  settings,
  queueName,
  secret,
  logger,
  everyMs = KEYLESS_WORKER_TTL_MS / 3,
}: {
  redis: WorkerRedis;
  settings: Pick<RedisSettings, 'prefix'>;
  queueName: string;
  secret: string | undefined;
  logger: Logger;
  everyMs?: number;
}): Promise<ErasureKeyWatch> {
  if (secret) return { notReady: () => undefined, close: async () => {} };
  const keys = erasureKeys(settings, queueName);
  const id = `${hostname()}:${process.pid}`;
  let held = false;
  async function check() {
    try {
      if ((await redis.exists(keys.anyErasure)) === 0) return;
      await redis.zadd(keys.keylessWorkers, Date.now() + KEYLESS_WORKER_TTL_MS, id);
      if (!held)
        logger.error(
          'ERASURE_KEY is not set and an erasure is recorded: this worker holds every delivery (retried, nothing lost) until ERASURE_KEY is set to the secret ops erase used',
        );
      held = true;
    } catch {
      // Redis away: the deliveries wait for it anyway; the next check says it again.
    }
  }
  await check();
  const timer = setInterval(() => void check(), everyMs);
  timer.unref();
  return {
    notReady: () => (held ? 'ERASURE_KEY is not set and an erasure is recorded: deliveries are held' : undefined),
    async close() {
      clearInterval(timer);
      if (held) await redis.zrem(keys.keylessWorkers, id).catch(() => {});
    },
  };
}
