import { hash as digest } from 'node:crypto';
import { queueKey, type RedisSettings } from './redis-settings.ts';

/**
 * Names of the Redis keys the submission path owns, besides BullMQ's own (the gateway writes them, erase
 * removes a person's). Each starts as the queue's own
 * keys do (`<QUEUE_PREFIX>:<queue>:`, see queueKey), so on a Redis Cluster, whose prefix holds a hash tag,
 * they share one slot with the queue, and a WAIT after the job's add covers them on the same connection. No name
 * carries PII: emails, idempotency keys and client addresses appear only as SHA-256 prefixes.
 *
 * 32 hex characters (128 bits) of SHA-256: for a billion distinct emails the chance that any two share a
 * key is about 1e-21 (n²/2^129), where 16 characters (64 bits) would already be about 3% at that count;
 * a shared key would hand one person another's contact id. The full 64 characters would cost 32 more
 * bytes per key for no practical gain.
 *
 * A plain (unkeyed) hash still lets someone who can read Redis test whether a given address is present;
 * it keeps addresses out of key names, logs of key names and `SCAN` output, not away from such a person.
 */
export function submissionKeys(settings: Pick<RedisSettings, 'prefix'>, queueName: string) {
  const tag = queueKey(settings, queueName);
  return {
    /** Email → contact id (`con_…`), a string with a long TTL renewed on every use. */
    contact: (email: string) => `${tag}:contact:${keyHash(email)}`,
    /** Idempotency-Key → the first answer's ids and the body's fingerprint, a hash kept 24 h. */
    idempotency: (key: string) => `${tag}:idem:${keyHash(key)}`,
    /** A client's request count in its current rate-limit window (`client` is already a hash). */
    rateLimit: (client: string) => `${tag}:rate:${client}`,
    /** The SCAN pattern of every idempotency record (erase looks for a person's among them). */
    idempotencyPattern: `${tag}:idem:*`,
  };
}

export type SubmissionKeys = ReturnType<typeof submissionKeys>;

/** The 32-hex-character SHA-256 prefix the key names use. */
export function keyHash(value: string): string {
  return digest('sha256', value, 'hex').slice(0, 32);
}
