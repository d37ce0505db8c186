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
import {
  type LocalSettings,
  loadConfig as loadWorkerConfig,
  type WorkerConfig,
  withLocalSettings,
} from '@forms/worker';
import * as v from 'valibot';

const EnvSchema = v.object({
  ...SHARED_ENV_ENTRIES,
  // To find the Airtable base's rate-limit keys for `ops status`; only `ops erase` calls Airtable.
  AIRTABLE_BASE_ID: envAirtableBaseId,
  // Who the audit trail names for this CLI's actions; the OS user when unset.
  OPS_ACTOR: v.optional(v.pipe(v.string(), v.trim(), v.minLength(1), v.maxLength(100))),
  // Only `ops rekey ID_KEY` reads it: the new secret whose check value it records.
  ID_KEY: v.optional(v.pipe(v.string(), v.minLength(32, 'must be at least 32 characters'))),
  // Akismet's submit-spam / submit-ham, fed by `ops spam mark` and `release` (the gateway's settings).
  ...AKISMET_ENV_ENTRIES,
  PUBLIC_BASE_URL: v.optional(v.pipe(v.string(), v.url('must be a URL'))),
});

export type OpsConfig = Readonly<{
  /** One Redis (REDIS_URL) or a Redis Cluster (REDIS_CLUSTER_NODES), chosen by the apps' own rule. */
  redis: RedisSettings;
  /** Where `redis` came from and what to do when it does not answer, for the error that says so. */
  redisOrigin: RedisOrigin;
  queueName: string;
  airtableBaseId: string | undefined;
  /** Who the audit trail names: OPS_ACTOR, else the OS user. */
  actor: string;
  /** ID_KEY as set here (or by `pnpm start` in DATA_DIR), for `ops rekey ID_KEY`. */
  idKey: string | undefined;
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

/**
 * Reads the queue's Redis and name exactly as the apps do (one shared schema); a bad value names the variable.
 * `saved` is what an earlier `pnpm start` wrote in DATA_DIR (`readLocalSettings`, read by main.ts only): its
 * Redis, local S3 and ERASURE_KEY fill in what `given` leaves unset. This reads no file itself.
 */
export function loadConfig(given: Record<string, string | undefined>, saved?: LocalSettings): OpsConfig {
  const env = withLocalSettings(given, saved);
  const e = parseEnv(EnvSchema, env);
  const { redis, queueName } = sharedSettings(e);
  return Object.freeze({
    redis,
    redisOrigin: redisOrigin(given, env, saved),
    queueName,
    airtableBaseId: e.AIRTABLE_BASE_ID,
    actor: e.OPS_ACTOR ?? osUser(),
    idKey: e.ID_KEY,
    akismet: akismetSettings(e, (e.PUBLIC_BASE_URL ?? 'http://localhost:3000').replace(/\/$/, '')),
    keys: opsKeys(redis, queueName),
    worker: () => loadWorkerConfig(env),
  });
}

type RedisOrigin = Readonly<{ from: string; todo: string }>;

/** Which setting chose the Redis, and what an operator does when it does not answer: the one place that says. */
function redisOrigin(
  given: Record<string, string | undefined>,
  env: Record<string, string | undefined>,
  saved: LocalSettings | undefined,
): RedisOrigin {
  if (given.REDIS_CLUSTER_NODES)
    return { from: 'REDIS_CLUSTER_NODES', todo: 'check that the cluster runs and that REDIS_CLUSTER_NODES names it' };
  if (given.REDIS_URL)
    return { from: 'REDIS_URL', todo: "check that this Redis runs and that REDIS_URL names the apps' Redis" };
  if (saved && env.REDIS_URL)
    return {
      from: `${saved.file}, written by the last \`pnpm start\` here`,
      todo: "`pnpm start` is not running: start it (in another terminal), or set REDIS_URL to the apps' Redis",
    };
  return {
    from: `the default: REDIS_URL is not set, and DATA_DIR ${given.DATA_DIR || '.data'} has no local.json naming the Redis of a \`pnpm start\``,
    todo: "set REDIS_URL to the apps' Redis, or run `pnpm start` (in another terminal) and run this beside it",
  };
}

function osUser(): string {
  try {
    return userInfo().username;
  } catch {
    return 'unknown';
  }
}
