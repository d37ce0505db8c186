import { createHmac } from 'node:crypto';
import * as v from 'valibot';
import { queueKey, type RedisSettings } from './redis-settings.ts';
import { rotatingSecret } from './rotating-secret.ts';

/**
 * The erasure variables, read the same way by the worker (which refuses erased addresses) and the ops CLI
 * (which erases). ERASURE_KEY is the HMAC secret of the tombstones and audit entries: unset, `erase`
 * refuses to run, and a worker that finds an erasure recorded holds its jobs (retried) instead of guessing.
 */
export const ERASURE_ENV_ENTRIES = {
  ERASURE_KEY: v.optional(v.pipe(v.string(), v.minLength(32, 'must be at least 32 characters'))),
  // The key being rotated away from: tombstones are read and written under both (docs/privacy.md#rotating-erasure_key).
  ERASURE_KEY_PREVIOUS: v.optional(v.pipe(v.string(), v.minLength(32, 'must be at least 32 characters'))),
  ERASURE_TOMBSTONE_DAYS: v.optional(
    v.pipe(v.string(), v.regex(/^\d+$/, 'must be a whole number'), v.transform(Number), v.minValue(1)),
    '400',
  ),
};

/**
 * A keyed hash of an address (HMAC-SHA256 over the lower-cased address, 32 hex characters, as the other
 * key names): whoever reads Redis or the audit trail cannot test a guessed address without the secret.
 */
export function erasureSubject(secret: string, email: string): string {
  return createHmac('sha256', secret).update(email.trim().toLowerCase()).digest('hex').slice(0, 32);
}

/**
 * The erasure keys beside the queue's (`<prefix>:<queue>:…`, one slot on a cluster):
 * - `erased:<subject>`: a tombstone, the erase time in epoch ms, kept ERASURE_TOMBSTONE_DAYS;
 * - `erasures`: set by the first erase and never removed: a worker without ERASURE_KEY that sees it holds
 *   its jobs rather than deliver one for an address it cannot check;
 * - `erasure-keyless-workers`: the workers holding their jobs so, a sorted set of worker ids scored by when
 *   their word expires (each refreshes it while it runs): the gateway's /readyz and metrics and `ops status`
 *   count the live ones (`KEYLESS_WORKER_TTL_MS`).
 */
export function erasureKeys(settings: Pick<RedisSettings, 'prefix'>, queueName: string) {
  return {
    tombstone: (subject: string) => queueKey(settings, queueName, 'erased', subject),
    anyErasure: queueKey(settings, queueName, 'erasures'),
    keylessWorkers: queueKey(settings, queueName, 'erasure-keyless-workers'),
  };
}

/** How long a keyless worker's word lasts in `erasure-keyless-workers`; it refreshes it three times as often. */
export const KEYLESS_WORKER_TTL_MS = 30_000;

/** What the readiness answers and `ops status` say while workers hold their jobs for want of ERASURE_KEY. */
export function keylessWorkersReason(count: number): string {
  return `${count} worker(s) without ERASURE_KEY while an erasure is recorded: every delivery waits (retried, nothing lost); set ERASURE_KEY (the secret ops erase used) on every worker and restart them`;
}

/**
 * ERASURE_KEY and, in a rotation window, ERASURE_KEY_PREVIOUS, as the worker and `ops erase` use them: the
 * current one first (`rotatingSecret`).
 */
export function erasureSecrets(e: { ERASURE_KEY?: string | undefined; ERASURE_KEY_PREVIOUS?: string | undefined }) {
  const { current, previous } = rotatingSecret(e, 'ERASURE_KEY', 'key');
  return { erasureKey: current, erasureKeyPrevious: previous };
}

/** What a job refused for an erased address keeps of its payload once the worker has blanked it. */
export type ErasedJobData = {
  v: 1;
  submissionId: string;
  recordId: string;
  kind: string;
  acceptedAt: string;
  erased: true;
};
