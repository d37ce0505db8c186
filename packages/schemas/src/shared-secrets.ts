import { createHmac } from 'node:crypto';
import { queueKey, type RedisSettings } from './redis-settings.ts';

/**
 * The secrets every process must share: ID_KEY (every gateway derives contact ids and keyed submission ids
 * with it, so two gateways must derive the same id for the same email or Idempotency-Key) and ERASURE_KEY
 * (tombstones are named by an HMAC under it, so a worker with another key never finds one).
 */
export const SHARED_SECRETS = ['ID_KEY', 'ERASURE_KEY'] as const;
export type SharedSecret = (typeof SHARED_SECRETS)[number];

/**
 * A secret's check value: HMAC-SHA256 of a fixed label under the secret (hex). Equal secrets give equal
 * values; the value says nothing of the secret, so it can sit in Redis and be compared by every process.
 */
export function secretCheckValue(variable: SharedSecret, secret: string): string {
  return createHmac('sha256', secret).update(`forms-pipeline shared secret check: ${variable}`).digest('hex');
}

/**
 * The keys of one shared secret, beside the queue's (`<prefix>:<queue>:…`, one slot on a cluster); no PII:
 * - `secret-check:<variable>`: the check value the first process (or first erase) recorded (SET NX), for good;
 *   `ops rekey` replaces it;
 * - `secret-differs:<variable>`: the processes whose value differs, a sorted set of process ids scored by when
 *   their word expires (each refreshes it while it runs): the gateway's /readyz and metrics and `ops status`
 *   count the live ones (`SECRET_DIFFERS_TTL_MS`).
 */
export function sharedSecretKeys(settings: Pick<RedisSettings, 'prefix'>, queueName: string, variable: SharedSecret) {
  const name = variable.toLowerCase().replace('_', '-');
  return {
    check: queueKey(settings, queueName, 'secret-check', name),
    differing: queueKey(settings, queueName, 'secret-differs', name),
  };
}

/** How long a differing process's word lasts in `secret-differs:<variable>`; it refreshes it three times as often. */
export const SECRET_DIFFERS_TTL_MS = 30_000;

/** What readiness, logs and `ops status` say of a secret that differs from the recorded one (never the secret). */
export function secretDiffersReason(variable: SharedSecret, who: string): string {
  const what =
    variable === 'ERASURE_KEY'
      ? 'tombstones would not be found, so every delivery waits (retried, nothing lost)'
      : 'ids would not match the other gateways, so it takes no submission';
  return `${who}: ${variable} differs from the one recorded in Redis by the other processes: ${what}; set ${variable} to the secret the others use (or run \`ops rekey ${variable}\` when moving every process to a new one, docs/operations.md#shared-secrets)`;
}
