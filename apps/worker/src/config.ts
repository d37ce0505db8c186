import { S3_ENV_ENTRIES, type StorageSettings, storageSettings } from '@forms/object-storage';
import {
  adminTokens,
  ERASURE_ENV_ENTRIES,
  envAdminToken,
  envAirtableBaseId,
  envInt,
  envPort,
  erasureSecrets,
  parseEnv,
  RETRY_POLICY,
  type RedisSettings,
  SHARED_ENV_ENTRIES,
  sharedSettings,
} from '@forms/schemas';
import * as v from 'valibot';
import type { AirtableSettings } from './crm/airtable/airtable-crm.ts';
import { SPAM_ENV_ENTRIES, type SpamConfig, spamSettings } from './spam/spam-config.ts';

const url = v.pipe(v.string(), v.url('must be a URL'));
const positiveNumber = v.pipe(
  v.string(),
  v.regex(/^\d+(\.\d+)?$/, 'must be a number'),
  v.transform(Number),
  v.minValue(0.01),
);
const fraction = v.pipe(v.string(), v.regex(/^0(\.\d+)?$/, 'must be a number from 0 to below 1'), v.transform(Number));

const EnvSchema = v.object({
  ...S3_ENV_ENTRIES,
  CV_URL_TTL_SECONDS: v.optional(envInt, '900'),
  CV_RETENTION_DAYS: v.optional(envInt, '180'),
  ...ERASURE_ENV_ENTRIES,
  ...SHARED_ENV_ENTRIES,
  DATABASE_URL: v.optional(url),
  DATABASE_CONNECT_TIMEOUT_MS: v.optional(envInt, '5000'),
  DATABASE_QUERY_TIMEOUT_MS: v.optional(envInt, '10000'),
  DATA_DIR: v.optional(v.string(), '.data'),
  WORKER_CONCURRENCY: v.optional(envInt),
  WORKER_LOCK_DURATION_MS: v.optional(envInt, '30000'),
  RETRY_BASE_DELAY_MS: v.optional(envInt, String(RETRY_POLICY.baseDelayMs)),
  RETRY_MAX_DELAY_MS: v.optional(envInt, String(RETRY_POLICY.maxDelayMs)),
  SHUTDOWN_TIMEOUT_MS: v.optional(envInt, '25000'),
  AIRTABLE_API_KEY: v.optional(v.string()),
  AIRTABLE_BASE_ID: envAirtableBaseId,
  AIRTABLE_ENDPOINT_URL: v.optional(url, 'https://api.airtable.com'),
  AIRTABLE_MAPPING_FILE: v.optional(v.string()),
  AIRTABLE_RATE_LIMIT: v.optional(positiveNumber, '5'),
  AIRTABLE_RATE_MARGIN: v.optional(fraction, '0.1'),
  AIRTABLE_LOCKOUT_MS: v.optional(envInt, '30000'),
  AIRTABLE_REQUEST_TIMEOUT_MS: v.optional(envInt, '15000'),
  AIRTABLE_FAULT_PROBE_MS: v.optional(envInt, '30000'),
  ADMIN_TOKEN: envAdminToken,
  ADMIN_TOKEN_PREVIOUS: envAdminToken,
  METRICS_PORT: v.optional(envPort),
  METRICS_HOST: v.optional(v.string(), '0.0.0.0'),
  ...SPAM_ENV_ENTRIES,
});

export type WorkerConfig = Readonly<{
  /** A single Redis or a cluster, and the queue's key prefix (hash-tagged on a cluster). */
  redis: RedisSettings;
  queueName: string;
  /** REDIS_ALLOW_EVICTION=true: start even when Redis's maxmemory-policy is not noeviction. */
  allowEviction: boolean;
  databaseUrl: string | undefined;
  /** Bounds on every Postgres call (a database that accepts and never answers must not hang jobs). */
  databaseTimeouts: Readonly<{ connectTimeoutMs: number; queryTimeoutMs: number }>;
  /** Where the embedded PGlite keeps its files when DATABASE_URL is not set. */
  pgliteDir: string;
  /** Jobs run at once per process. Both drivers batch the writes of concurrent jobs: many in flight fill them. */
  concurrency: number;
  lockDurationMs: number;
  retryBaseDelayMs: number;
  retryMaxDelayMs: number;
  shutdownTimeoutMs: number;
  logLevel: string;
  /** Set when AIRTABLE_API_KEY and AIRTABLE_BASE_ID are: the CRM is then Airtable. */
  airtable: AirtableSettings | undefined;
  /** Where careers CVs are finalised; none when S3_BUCKET is unset. */
  storage: StorageSettings | undefined;
  /** How long the CV link handed to the CRM stays valid (Airtable copies the file within seconds). */
  cvUrlTtlSeconds: number;
  /** Bearer token of /admin/metrics; without it the metrics port answers 404 to everything. */
  adminToken: string | undefined;
  /** ADMIN_TOKEN_PREVIOUS: also accepted during a rotation window, so clients move over without a 401. */
  adminTokenPrevious: string | undefined;
  /** The worker's own metrics port (0: any free port); none when METRICS_PORT is unset. */
  metricsPort: number | undefined;
  metricsHost: string;
  /** CVs (staged and final) older than this are deleted by the scheduled retention job, their CRM link cleared. */
  cvRetentionDays: number;
  /** The HMAC secret of erasure tombstones; unset, a worker that finds an erasure recorded holds its jobs. */
  erasureKey: string | undefined;
  /** ERASURE_KEY_PREVIOUS: during a rotation, tombstones are read and written under it too. */
  erasureKeyPrevious: string | undefined;
  /** How long a tombstone refuses late jobs for an erased address. */
  tombstoneDays: number;
  /** The judge's layers and the quarantine it holds into (spam/spam-config.ts). */
  spam: SpamConfig;
}>;

/** Parses the environment once; a bad value throws an error naming the variable. */
export function loadConfig(env: Record<string, string | undefined> = process.env): WorkerConfig {
  const e = parseEnv(EnvSchema, env);
  if (Boolean(e.AIRTABLE_API_KEY) !== Boolean(e.AIRTABLE_BASE_ID)) {
    const missing = e.AIRTABLE_API_KEY ? 'AIRTABLE_BASE_ID' : 'AIRTABLE_API_KEY';
    throw new Error(
      `Invalid configuration: ${missing} must be set too (the Airtable CRM needs both AIRTABLE_API_KEY and AIRTABLE_BASE_ID)`,
    );
  }
  const airtable: AirtableSettings | undefined =
    e.AIRTABLE_API_KEY && e.AIRTABLE_BASE_ID
      ? Object.freeze({
          apiKey: e.AIRTABLE_API_KEY,
          baseId: e.AIRTABLE_BASE_ID,
          endpointUrl: e.AIRTABLE_ENDPOINT_URL,
          mappingFile: e.AIRTABLE_MAPPING_FILE,
          // Under the published limit: spacing at exactly 5/s leaves no room for a late grant or network
          // jitter, and one 429 costs a 30-second lock-out (1,350 records at full speed). See `sendSpacing`.
          rateLimit: e.AIRTABLE_RATE_LIMIT,
          requestsPerSecond: e.AIRTABLE_RATE_LIMIT * (1 - e.AIRTABLE_RATE_MARGIN),
          lockoutMs: e.AIRTABLE_LOCKOUT_MS,
          requestTimeoutMs: e.AIRTABLE_REQUEST_TIMEOUT_MS,
          faultProbeMs: e.AIRTABLE_FAULT_PROBE_MS,
        })
      : undefined;
  return Object.freeze({
    ...sharedSettings(e),
    databaseUrl: e.DATABASE_URL,
    databaseTimeouts: Object.freeze({
      connectTimeoutMs: e.DATABASE_CONNECT_TIMEOUT_MS,
      queryTimeoutMs: e.DATABASE_QUERY_TIMEOUT_MS,
    }),
    pgliteDir: `${e.DATA_DIR.replace(/\/$/, '')}/pglite`,
    // Airtable: five tables' worth of ten-record batches, plus the records of requests in flight. Postgres:
    // a statement per batch of what the jobs in flight bring (bench:burst drained fastest at 100 of 50 and 100).
    concurrency: e.WORKER_CONCURRENCY ?? 100,
    lockDurationMs: e.WORKER_LOCK_DURATION_MS,
    retryBaseDelayMs: e.RETRY_BASE_DELAY_MS,
    retryMaxDelayMs: e.RETRY_MAX_DELAY_MS,
    shutdownTimeoutMs: e.SHUTDOWN_TIMEOUT_MS,
    airtable,
    storage: storageSettings(e),
    cvUrlTtlSeconds: e.CV_URL_TTL_SECONDS,
    ...adminTokens(e),
    metricsPort: e.METRICS_PORT,
    metricsHost: e.METRICS_HOST,
    cvRetentionDays: e.CV_RETENTION_DAYS,
    ...erasureSecrets(e),
    tombstoneDays: e.ERASURE_TOMBSTONE_DAYS,
    spam: spamSettings(e),
  });
}
