import * as v from 'valibot';
import { DEFAULT_QUEUE_NAME } from './jobs.ts';
import { REDIS_ENV_ENTRIES, redisSettings } from './redis-settings.ts';
import { rotatingSecret } from './rotating-secret.ts';

/**
 * The variables every process reads the same way (gateway, worker, `pnpm start`, the ops CLI): the queue's
 * Redis (single or cluster, and the key prefix), the queue's name, the log level, and the eviction override. One definition, so they cannot drift.
 */
export const SHARED_ENV_ENTRIES = {
  ...REDIS_ENV_ENTRIES,
  QUEUE_NAME: v.optional(v.pipe(v.string(), v.regex(/^[\w-]+$/, 'letters, digits, _ and - only')), DEFAULT_QUEUE_NAME),
  LOG_LEVEL: v.optional(v.picklist(['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent']), 'info'),
  REDIS_ALLOW_EVICTION: v.optional(v.picklist(['true', 'false'], 'must be true or false'), 'false'),
};

/** The shared variables as the apps keep them in their frozen config. */
export function sharedSettings(e: v.InferOutput<v.ObjectSchema<typeof SHARED_ENV_ENTRIES, undefined>>) {
  return {
    redis: redisSettings(e),
    queueName: e.QUEUE_NAME,
    logLevel: e.LOG_LEVEL,
    /** REDIS_ALLOW_EVICTION=true: start even when Redis's maxmemory-policy is not noeviction. */
    allowEviction: e.REDIS_ALLOW_EVICTION === 'true',
  };
}

/** A TCP port, as every app reads one (PORT, METRICS_PORT, ...). */
export const envPort = v.pipe(
  v.string(),
  v.regex(/^\d+$/, 'must be a port number'),
  v.transform(Number),
  v.integer(),
  v.maxValue(65535),
);

/** A whole number of at least 1 (a count, a duration in ms or s), as every app reads one. */
export const envInt = v.pipe(
  v.string(),
  v.regex(/^\d+$/, 'must be a whole number'),
  v.transform(Number),
  v.minValue(1, 'must be at least 1'),
);

/** ADMIN_TOKEN, the admin wing's and the worker metrics' bearer token, checked alike wherever it is read. */
export const envAdminToken = v.optional(v.pipe(v.string(), v.minLength(16, 'must be at least 16 characters')));

/**
 * ADMIN_TOKEN and ADMIN_TOKEN_PREVIOUS (both accepted during a rotation window, so no client is refused while
 * it moves to the new token; `rotatingSecret`).
 */
export function adminTokens(e: { ADMIN_TOKEN?: string | undefined; ADMIN_TOKEN_PREVIOUS?: string | undefined }) {
  const { current, previous } = rotatingSecret(e, 'ADMIN_TOKEN', 'token');
  return { adminToken: current, adminTokenPrevious: previous };
}

/** AIRTABLE_BASE_ID, checked alike by the worker, the gateway (readiness, metrics) and the ops CLI. */
export const envAirtableBaseId = v.optional(v.pipe(v.string(), v.regex(/^[\w-]+$/, 'letters, digits, _ and - only')));
