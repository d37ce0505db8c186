import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';

/** Where `pnpm start` writes the settings it chose itself, in its DATA_DIR. */
const FILE = 'local.json';

/**
 * What `pnpm start` chose for its apps when nothing was configured (the Redis it started, its local S3's
 * endpoint, bucket and fixed credentials, its ERASURE_KEY), kept in DATA_DIR for the tools run beside it:
 * without it, `pnpm ops` in a second terminal looked for Redis on 6379 and found none (or another
 * deployment's), and `ops erase` printed `CV objects 0` and left the person's CV in a bucket it could not
 * see. Written at each start (the ports may change); owner-only, as it holds the local key.
 */
export function writeLocalSettings(dataDir: string, env: Record<string, string>): void {
  mkdirSync(dataDir, { recursive: true });
  writeFileSync(join(dataDir, FILE), `${JSON.stringify(env, null, 2)}\n`, { mode: 0o600 });
}

/**
 * `env` with what `pnpm start` wrote in DATA_DIR filled in, group by group, where `env` sets nothing of that
 * group: a Redis (REDIS_URL or REDIS_CLUSTER_NODES), a bucket (S3_BUCKET), ERASURE_KEY, ID_KEY. What is set wins;
 * with no file (no `pnpm start` has run here), `env` as it is.
 */
export function withLocalSettings(env: Record<string, string | undefined>): Record<string, string | undefined> {
  const saved = readLocalSettings(env.DATA_DIR ?? '.data');
  const take = (set: boolean, keys: string[]) =>
    set ? {} : Object.fromEntries(keys.flatMap((k) => (saved[k] === undefined ? [] : [[k, saved[k]]])));
  return {
    ...env,
    ...take(Boolean(env.REDIS_URL || env.REDIS_CLUSTER_NODES), ['REDIS_URL']),
    ...take(Boolean(env.S3_BUCKET), [
      'S3_ENDPOINT',
      'S3_BUCKET',
      'S3_FORCE_PATH_STYLE',
      'AWS_ACCESS_KEY_ID',
      'AWS_SECRET_ACCESS_KEY',
    ]),
    ...take(Boolean(env.ERASURE_KEY), ['ERASURE_KEY']),
    ...take(Boolean(env.ID_KEY), ['ID_KEY']),
  };
}

function readLocalSettings(dataDir: string): Record<string, string> {
  try {
    const saved = JSON.parse(readFileSync(join(dataDir, FILE), 'utf8')) as Record<string, unknown>;
    return Object.fromEntries(Object.entries(saved).filter((e): e is [string, string] => typeof e[1] === 'string'));
  } catch {
    return {};
  }
}
