import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';

/** Where `pnpm start` writes the local S3's settings, in its DATA_DIR. */
const FILE = 'local-s3.json';

/**
 * The local S3 that `pnpm start` runs (endpoint, bucket, its fixed credentials), kept in DATA_DIR for the
 * tools run beside it: `ops erase` without S3_BUCKET set once printed `CV objects 0` and left the person's
 * CV in this bucket, which it could not see. Written at each start (the port may change).
 */
export function writeLocalS3Settings(dataDir: string, env: Record<string, string>): void {
  mkdirSync(dataDir, { recursive: true });
  writeFileSync(join(dataDir, FILE), `${JSON.stringify(env, null, 2)}\n`, { mode: 0o600 });
}

/** The settings `pnpm start` wrote in `dataDir`, or none. */
export function readLocalS3Settings(dataDir: string): Record<string, string> {
  try {
    const saved = JSON.parse(readFileSync(join(dataDir, FILE), 'utf8')) as Record<string, unknown>;
    return Object.fromEntries(Object.entries(saved).filter((e): e is [string, string] => typeof e[1] === 'string'));
  } catch {
    return {};
  }
}
