import * as v from 'valibot';
import { DEFAULT_QUEUE_NAME, RETRY_POLICY } from '@forms/schemas';

const positiveInt = v.pipe(v.string(), v.regex(/^\d+$/, 'must be a whole number'), v.transform(Number), v.minValue(1));
const url = v.pipe(v.string(), v.url('must be a URL'));

const EnvSchema = v.object({
  REDIS_URL: v.optional(url, 'redis://127.0.0.1:6379'),
  QUEUE_NAME: v.optional(v.pipe(v.string(), v.regex(/^[\w-]+$/, 'letters, digits, _ and - only')), DEFAULT_QUEUE_NAME),
  DATABASE_URL: v.optional(url),
  DATA_DIR: v.optional(v.string(), '.data'),
  WORKER_CONCURRENCY: v.optional(positiveInt, '10'),
  WORKER_LOCK_DURATION_MS: v.optional(positiveInt, '30000'),
  RETRY_BASE_DELAY_MS: v.optional(positiveInt, String(RETRY_POLICY.baseDelayMs)),
  RETRY_MAX_DELAY_MS: v.optional(positiveInt, String(RETRY_POLICY.maxDelayMs)),
  SHUTDOWN_TIMEOUT_MS: v.optional(positiveInt, '25000'),
  LOG_LEVEL: v.optional(v.picklist(['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent']), 'info'),
});

export type WorkerConfig = Readonly<{
  redisUrl: string;
  queueName: string;
  databaseUrl: string | undefined;
  /** Where the embedded PGlite keeps its files when DATABASE_URL is not set. */
  pgliteDir: string;
  concurrency: number;
  lockDurationMs: number;
  retryBaseDelayMs: number;
  retryMaxDelayMs: number;
  shutdownTimeoutMs: number;
  logLevel: string;
}>;

/** Parses the environment once; a bad value throws an error naming the variable. */
export function loadConfig(env: Record<string, string | undefined> = process.env): WorkerConfig {
  const present = Object.fromEntries(Object.entries(env).filter(([, value]) => value !== undefined && value !== ''));
  const result = v.safeParse(EnvSchema, present);
  if (!result.success) {
    const issue = result.issues[0];
    throw new Error(`Invalid configuration: ${String(issue.path?.[0]?.key ?? 'environment')} ${issue.message}`);
  }
  const e = result.output;
  return Object.freeze({
    redisUrl: e.REDIS_URL,
    queueName: e.QUEUE_NAME,
    databaseUrl: e.DATABASE_URL,
    pgliteDir: `${e.DATA_DIR.replace(/\/$/, '')}/pglite`,
    concurrency: e.WORKER_CONCURRENCY,
    lockDurationMs: e.WORKER_LOCK_DURATION_MS,
    retryBaseDelayMs: e.RETRY_BASE_DELAY_MS,
    retryMaxDelayMs: e.RETRY_MAX_DELAY_MS,
    shutdownTimeoutMs: e.SHUTDOWN_TIMEOUT_MS,
    logLevel: e.LOG_LEVEL,
  });
}
