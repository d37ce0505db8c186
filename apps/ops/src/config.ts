import { parseEnv, type RedisSettings, SHARED_ENV_ENTRIES, sharedSettings } from '@forms/schemas';
import * as v from 'valibot';

const EnvSchema = v.object({
  ...SHARED_ENV_ENTRIES,
  // Only to find the Airtable base's rate-limit keys for `ops status`; the CLI never calls Airtable.
  AIRTABLE_BASE_ID: v.optional(v.pipe(v.string(), v.regex(/^[\w-]+$/, 'letters, digits, _ and - only'))),
});

export type OpsConfig = Readonly<{
  /** One Redis (REDIS_URL) or a Redis Cluster (REDIS_CLUSTER_NODES), chosen by the apps' own rule. */
  redis: RedisSettings;
  queueName: string;
  airtableBaseId: string | undefined;
}>;

/** Reads the queue's Redis and name exactly as the apps do (one shared schema); a bad value names the variable. */
export function loadConfig(env: Record<string, string | undefined>): OpsConfig {
  const e = parseEnv(EnvSchema, env);
  const { redis, queueName } = sharedSettings(e);
  return Object.freeze({ redis, queueName, airtableBaseId: e.AIRTABLE_BASE_ID });
}
