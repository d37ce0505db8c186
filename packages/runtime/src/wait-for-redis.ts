import type { Cluster, Redis } from 'ioredis';
import type { Logger } from 'pino';

/**
 * Resolves once `redis` is connected and ready, however long that takes: a Redis that is down at start-up
 * is waited for, never fatal (a process manager would only restart us into the same wait). Logs a warning
 * every `logEveryMs` so the wait is visible. The client's own retry strategy does the reconnecting; this
 * only listens, so connection errors meanwhile are expected and not thrown.
 */
export async function waitForRedis(
  redis: Redis | Cluster,
  {
    logger,
    what,
    logEveryMs = 5_000,
    signal,
  }: { logger: Logger; what: string; logEveryMs?: number; signal?: AbortSignal },
): Promise<void> {
  if (redis.status === 'ready') return;
  const started = Date.now();
  const timer = setInterval(() => {
    logger.warn({ waitedMs: Date.now() - started }, `${what}: waiting for Redis`);
  }, logEveryMs);
  // Not `events.once(redis, 'ready')`: it rejects on the first 'error' event, which is what made a Redis
  // that was down at start-up fatal. Connection errors are the client's to retry; we wait for 'ready' only.
  const ignore = () => {};
  redis.on('error', ignore);
  let onReady = () => {};
  let onAbort = () => {};
  try {
    await new Promise<void>((resolve, reject) => {
      onReady = resolve;
      onAbort = () => reject(signal?.reason);
      redis.once('ready', onReady);
      signal?.addEventListener('abort', onAbort, { once: true });
      if (signal?.aborted) onAbort();
    });
  } finally {
    clearInterval(timer);
    redis.off('error', ignore);
    redis.off('ready', onReady);
    signal?.removeEventListener('abort', onAbort);
  }
}
