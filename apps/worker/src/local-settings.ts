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

/** What an earlier `pnpm start` chose, as found in a DATA_DIR: the file and the settings in it. */
export type LocalSettings = Readonly<{ file: string; settings: Readonly<Record<string, string>> }>;

/**
 * What `pnpm start` wrote in `dataDir` (default `.data`, relative to the working folder, as for the apps), or
 * undefined when no start has run there. Only a process's main calls this: a function that loads a
 * configuration takes what it read as an argument, so a test never reads the checkout's own `.data`.
 */
export function readLocalSettings(dataDir = '.data'): LocalSettings | undefined {
  const file = join(dataDir, FILE);
  try {
    const saved = JSON.parse(readFileSync(file, 'utf8')) as Record<string, unknown>;
    const settings = Object.fromEntries(
      Object.entries(saved).filter((e): e is [string, string] => typeof e[1] === 'string'),
    );
    return { file, settings };
  } catch {
    return undefined;
  }
}

/**
 * `env` with `saved` (what `pnpm start` wrote, `readLocalSettings`) filled in, group by group, where `env` sets
 * nothing of that group: a Redis (REDIS_URL or REDIS_CLUSTER_NODES), a bucket (S3_BUCKET), ERASURE_KEY, ID_KEY.
 * What is set wins; with nothing saved, `env` as it is.
 */
export function withLocalSettings(
  env: Record<string, string | undefined>,
  saved: LocalSettings | undefined,
): Record<string, string | undefined> {
  const kept = saved?.settings ?? {};
  const take = (set: boolean, keys: string[]) =>
    set ? {} : Object.fromEntries(keys.flatMap((k) => (kept[k] === undefined ? [] : [[k, kept[k]]])));
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
