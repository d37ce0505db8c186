import { userInfo } from 'node:os';
import {
  envAirtableBaseId,
  opsKeys,
  parseEnv,
  type RedisSettings,
  SHARED_ENV_ENTRIES,
  sharedSettings,
} from '@forms/schemas';
import { AKISMET_ENV_ENTRIES, type AkismetSettings, akismetSettings } from '@forms/spam-filter';
import { loadConfig as loadWorkerConfig, type WorkerConfig, withLocalSettings } from '@forms/worker';
import * as v from 'valibot';

const EnvSchema = v.object({
  ...SHARED_ENV_ENTRIES,
  // To find the Airtable base's rate-limit keys for `ops status`; only `ops erase` calls Airtable.
  AIRTABLE_BASE_ID: envAirtableBaseId,
  // Who the audit trail names for this CLI's actions; the OS user when unset.
  OPS_ACTOR: v.optional(v.pipe(v.string(), v.trim(), v.minLength(1), v.maxLength(100))),
  // Akismet's submit-spam / submit-ham, fed by `ops spam mark` and `release` (the gateway's settings).
  ...AKISMET_ENV_ENTRIES,
  PUBLIC_BASE_URL: v.optional(v.pipe(v.string(), v.url('must be a URL'))),
});

export type OpsConfig = Readonly<{
  /** One Redis (REDIS_URL) or a Redis Cluster (REDIS_CLUSTER_NODES), chosen by the apps' own rule. */
  redis: RedisSettings;
  queueName: string;
  airtableBaseId: string | undefined;
  /** Who the audit trail names: OPS_ACTOR, else the OS user. */
  actor: string;
  /** Akismet, when AKISMET_API_KEY is set: told what ops decide about held submissions. */
  akismet: AkismetSettings | undefined;
  /** The audit stream's and the quarantine's keys, beside the queue's. */
  keys: ReturnType<typeof opsKeys>;
  /**
   * The worker's own configuration (its CRM, bucket and ERASURE_KEY), read from the same environment
   * when `ops erase` needs it, and only then: the other commands never touch the CRM.
   */
  worker: () => WorkerConfig;
}>;

/** Reads the queue's Redis and name exactly as the apps do (one shared schema); a bad value names the variable. */
export function loadConfig(given: Record<string, string | undefined>): OpsConfig {
  // Beside a `pnpm start`, what it chose (its Redis, local S3 and ERASURE_KEY) where nothing is set.
  const env = withLocalSettings(given);
  const e = parseEnv(EnvSchema, env);
  const { redis, queueName } = sharedSettings(e);
  return Object.freeze({
    redis,
    queueName,
    airtableBaseId: e.AIRTABLE_BASE_ID,
    actor: e.OPS_ACTOR ?? osUser(),
    akismet: akismetSettings(e, (e.PUBLIC_BASE_URL ?? 'http://localhost:3000').replace(/\/$/, '')),
    keys: opsKeys(redis, queueName),
    worker: () => loadWorkerConfig(env),
  });
}

function osUser(): string {
  try {
    return userInfo().username;
  } catch {
    return 'unknown';
  }
}
