import { watchCondition, watchSharedSecret } from '@forms/runtime';
import {
  erasureKeys,
  KEYLESS_WORKER_TTL_MS,
  type RedisSettings,
  SECRET_DIFFERS_TTL_MS,
  secretCheckValue,
  secretDiffersReason,
  sharedSecretKeys,
} from '@forms/schemas';
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
 * in `erasure-keyless-workers` (`watchCondition`) so the gateway's /readyz and metrics and `ops status` say
 * it too.
 *
 * A worker with the key checks it against the one recorded in Redis (`watchSharedSecret`; recorded by the
 * first worker or erase): one whose key differs holds every delivery the same way (`createErasureCheck`
 * throws), says so once naming ERASURE_KEY, is not ready, and is counted in `secret-differs:erasure-key`.
 */
export async function watchErasureKey({
  redis,
  settings,
  queueName,
  secret,
  previousSecret,
  logger,
  everyMs = KEYLESS_WORKER_TTL_MS / 3,
}: {
  redis: WorkerRedis;
  settings: Pick<RedisSettings, 'prefix'>;
  queueName: string;
  secret: string | undefined;
  /** ERASURE_KEY_PREVIOUS: in a rotation window, a recorded value of either key agrees. */
  previousSecret?: string | undefined;
  logger: Logger;
  everyMs?: number;
}): Promise<ErasureKeyWatch> {
  if (secret)
    return watchSharedSecret({
      redis,
      keys: sharedSecretKeys(settings, queueName, 'ERASURE_KEY'),
      values: [secret, ...(previousSecret ? [previousSecret] : [])].map((key) => secretCheckValue('ERASURE_KEY', key)),
      variable: 'ERASURE_KEY',
      reason: secretDiffersReason('ERASURE_KEY', 'this worker'),
      logger,
      ttlMs: SECRET_DIFFERS_TTL_MS,
      everyMs,
    });
  const keys = erasureKeys(settings, queueName);
  const held = await watchCondition({
    redis,
    members: keys.keylessWorkers,
    // Once an erasure is recorded it stays so: no news until then.
    probe: async () => ((await redis.exists(keys.anyErasure)) === 0 ? undefined : true),
    begins:
      'ERASURE_KEY is not set and an erasure is recorded: this worker holds every delivery (retried, nothing lost) until ERASURE_KEY is set to the secret ops erase used',
    logger,
    ttlMs: KEYLESS_WORKER_TTL_MS,
    everyMs,
  });
  return {
    notReady: () =>
      held.holds() ? 'ERASURE_KEY is not set and an erasure is recorded: deliveries are held' : undefined,
    close: held.close,
  };
}
