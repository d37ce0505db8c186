import { parseEnv, SHARED_ENV_ENTRIES, sharedSettings } from '@forms/schemas';
import * as v from 'valibot';

const EnvSchema = v.object({
  ...SHARED_ENV_ENTRIES,
  // Only to find the Airtable base's rate-limit keys for `ops status`; the CLI never calls Airtable.
  AIRTABLE_BASE_ID: v.optional(v.pipe(v.string(), v.regex(/^[\w-]+$/, 'letters, digits, _ and - only'))),
});

export type OpsConfig = Readonly<{
  redisUrl: string;
  prefix: string;
  queueName: string;
  airtableBaseId: string | undefined;
}>;

/** Reads the queue's Redis and name exactly as the apps do (one shared schema); a bad value names the variable. */
export function loadConfig(env: Record<string, string | undefined>): OpsConfig {
  const e = parseEnv(EnvSchema, env);
  const { redis, queueName } = sharedSettings(e);
  if (redis.mode === 'cluster') {
    throw new Error(
      'Invalid configuration: the ops CLI does not support REDIS_CLUSTER_NODES yet; point REDIS_URL at one node',
    );
  }
  return Object.freeze({ redisUrl: redis.url, prefix: redis.prefix, queueName, airtableBaseId: e.AIRTABLE_BASE_ID });
}
