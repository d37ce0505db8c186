import { readdirSync, readFileSync } from 'node:fs';
import { join, relative } from 'node:path';

/**
 * The test tiers, each a vitest project (`vitest.config.ts`), run in this order by `pnpm test`. A file's
 * tier follows from where it is and what it starts, so a new test lands in the right one by itself:
 *
 * - unit: tests beside the code (apps/*\/src, packages/*\/src) that run in-process and start nothing:
 *   no Redis, no database, no child process. Seconds; the daily loop runs all of it.
 * - integration: test/integration, and tests beside the code that use the test Redis or start a process.
 * - postgres: every other test that opens a CRM database (PGlite in memory, or a fresh database on the
 *   PostgreSQL at DATABASE_URL when set, made from one migrated template).
 * - fault: test/fault, two files at a time (kills, outages, partitions under load; timings matter), with the
 *   same databases as the postgres tier for those that open one.
 * - cluster: test/cluster, against a Redis Cluster started from redis-server binaries.
 */
export const TIERS = ['unit', 'integration', 'postgres', 'fault', 'cluster'] as const;
export type Tier = (typeof TIERS)[number];

const ROOT = join(import.meta.dirname, '..');
const OPENS_A_DATABASE = /support\/(crm-database|pipeline|failover-under-load)\.ts'|\bopenPglite\b|\bopenPostgres\b/;
const STARTS_SOMETHING = /inject\(\s*'redisUrl'\s*\)|\bspawn\(|\bexecFile(Sync)?\(|startRedisServer|startTestRedis/;

/** Every test file of the repository, relative to its root, with its tier. */
export function testFiles(): { file: string; tier: Tier }[] {
  const files = [
    ...['apps', 'packages'].flatMap((top) => findTests(join(ROOT, top), (path) => path.includes('/src/'))),
    ...findTests(join(ROOT, 'test'), () => true),
  ];
  return files.map((file) => ({ file, tier: tierOf(file, readFileSync(join(ROOT, file), 'utf8')) }));
}

export function tierOf(file: string, text: string): Tier {
  if (file.startsWith('test/cluster/')) return 'cluster';
  if (file.startsWith('test/fault/')) return 'fault';
  if (OPENS_A_DATABASE.test(text)) return 'postgres';
  if (file.startsWith('test/') || STARTS_SOMETHING.test(text)) return 'integration';
  return 'unit';
}

function findTests(dir: string, keep: (path: string) => boolean): string[] {
  return readdirSync(dir, { recursive: true, encoding: 'utf8' })
    .filter((path) => path.endsWith('.test.ts') && !path.includes('node_modules'))
    .map((path) => relative(ROOT, join(dir, path)))
    .filter(keep)
    .sort();
}

if (import.meta.filename === process.argv[1]) {
  // `pnpm exec node scripts/test-tiers.ts`: the tiers and their files, to check where a test landed.
  for (const tier of TIERS) {
    const files = testFiles().filter((t) => t.tier === tier);
    console.log(`${tier} (${files.length})`);
    for (const { file } of files) console.log(`  ${file}`);
  }
}
