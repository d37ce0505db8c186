import { type JobPayload, opsKeys, type RedisSettings, type SpamJudgement } from '@forms/schemas';
import type { Cluster, Redis } from 'ioredis';
import { withDeadline } from './with-deadline.ts';

// One script, one round trip, atomic: keep the payload under its submission id (the first time kept if a
// retry with the same Idempotency-Key quarantines it again), then bound the set: entries older than the
// age limit go, then the oldest past the count limit, at most 100 of each per call so one call stays
// short (each call adds one, so the bound holds). Both keys get the age limit as their TTL, renewed on
// every add: a quarantine nobody feeds disappears on its own.
// The reasons (why it was held) go in a third hash under the same id, kept and dropped with the payload.
// KEYS: [index zset][data hash][reasons hash]. ARGV: id, payload, now ms, max age ms, max count, reasons.
const QUARANTINE_SCRIPT = `
local index, data, reasons = KEYS[1], KEYS[2], KEYS[3]
local id, now, age, max = ARGV[1], tonumber(ARGV[3]), tonumber(ARGV[4]), tonumber(ARGV[5])
if redis.call('ZADD', index, 'NX', now, id) == 1 then
  redis.call('HSET', data, id, ARGV[2])
  redis.call('HSET', reasons, id, ARGV[6])
end
local expired = redis.call('ZRANGEBYSCORE', index, '-inf', now - age, 'LIMIT', 0, 100)
if #expired > 0 then
  redis.call('ZREM', index, unpack(expired))
  redis.call('HDEL', data, unpack(expired))
  redis.call('HDEL', reasons, unpack(expired))
end
local over = redis.call('ZCARD', index) - max
if over > 0 then
  local oldest = redis.call('ZRANGE', index, 0, math.min(over, 100) - 1)
  redis.call('ZREM', index, unpack(oldest))
  redis.call('HDEL', data, unpack(oldest))
  redis.call('HDEL', reasons, unpack(oldest))
end
redis.call('PEXPIRE', index, age)
redis.call('PEXPIRE', data, age)
redis.call('PEXPIRE', reasons, age)
return 1
`;

type QuarantiningRedis = (Redis | Cluster) & {
  quarantineSubmission(numKeys: number, ...args: string[]): Promise<number>;
};

export type Quarantine = (payload: JobPayload, judgement: SpamJudgement) => Promise<void>;

/**
 * Keeps a submission the spam layers held, exactly as it would have been queued, with why they held it,
 * for `ops spam` to list, release or purge: bounded by age (`QUARANTINE_DAYS`) and count (`QUARANTINE_MAX`).
 * Resolves once Redis holds it, like an add; rejects when Redis failed or did not answer within `timeoutMs`
 * (withDeadline; the caller decides what that becomes). `beforeWrite` runs just before the command is sent
 * (the gateway batches its writes per turn with it).
 */
export function createQuarantine(
  redis: Redis | Cluster,
  settings: Pick<RedisSettings, 'prefix'>,
  queueName: string,
  {
    maxAgeMs,
    maxCount,
    timeoutMs,
    failure,
    beforeWrite,
  }: {
    maxAgeMs: number;
    maxCount: number;
    timeoutMs: number;
    failure?: ((cause: unknown) => unknown) | undefined;
    beforeWrite?: (() => void) | undefined;
  },
): Quarantine {
  const keys = opsKeys(settings, queueName);
  if (!('quarantineSubmission' in redis)) redis.defineCommand('quarantineSubmission', { lua: QUARANTINE_SCRIPT });
  const scripted = redis as QuarantiningRedis;
  return async function quarantine(payload, judgement) {
    beforeWrite?.();
    await withDeadline(
      scripted.quarantineSubmission(
        3,
        keys.spamIndex,
        keys.spamData,
        keys.spamReasons,
        payload.submissionId,
        JSON.stringify(payload),
        String(Date.now()),
        String(maxAgeMs),
        String(maxCount),
        JSON.stringify(judgement),
      ),
      timeoutMs,
      failure,
    );
  };
}
