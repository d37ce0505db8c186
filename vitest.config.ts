import { createRequire, enableCompileCache } from 'node:module';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
// Brings in the typing of inject('redisUrl').
import type {} from '@forms/local-services/vitest-redis-setup';
import { defineConfig } from 'vitest/config';
import { TIERS, type Tier, testFiles } from './scripts/test-tiers.ts';

const redisSetup = createRequire(import.meta.url).resolve('@forms/local-services/vitest-redis-setup');
const postgresSetup = './test/support/postgres-template-setup.ts';

/** Each tier's own settings: what it starts before its files, and how many files run at once. */
const SETTINGS: Record<Tier, { globalSetup: string[]; maxWorkers?: number; fileParallelism?: boolean }> = {
  unit: { globalSetup: [], maxWorkers: 2 },
  // Each file has its own queue (and servers on free ports), so two run side by side, one per core.
  integration: { globalSetup: [redisSetup], maxWorkers: 2 },
  postgres: { globalSetup: [redisSetup, postgresSetup], maxWorkers: 2 },
  // Kills, outages and rate measurements under load, each with its own servers on free ports: mostly waiting
  // (outages, backoffs), so two files run at once, beside the cluster tier (docs/testing.md#the-tiers).
  fault: { globalSetup: [redisSetup, postgresSetup], maxWorkers: 2 },
  cluster: { globalSetup: [redisSetup], fileParallelism: false },
};

/**
 * One vitest project per tier (scripts/test-tiers.ts says which file is in which). `pnpm test` runs them one
 * after another, but for fault and cluster, two vitest runs side by side (each mostly waits); a run of several
 * tiers in one vitest (a file list) takes them in this order, by `groupOrder`.
 */
const files = testFiles();

// Every Node process of a run (vitest's workers, and the apps, ops commands and `pnpm start`s the tests start)
// keeps what it compiled in Node's module compile cache, as the entry points do (require-supported-node.js):
// the tests start hundreds of processes of the same files (docs/testing.md#how-long-ci-takes).
process.env.NODE_COMPILE_CACHE ??= join(tmpdir(), 'node-compile-cache');
enableCompileCache();

export default defineConfig({
  test: {
    projects: TIERS.map((tier, groupOrder) => ({
      test: {
        name: tier,
        include: files.flatMap((t) => (t.tier === tier ? [t.file] : [])),
        testTimeout: tier === 'unit' ? 10_000 : 30_000,
        hookTimeout: 60_000,
        sequence: { groupOrder },
        // The files of a worker share its modules, loaded once: a fresh set per file cost a quarter of the
        // integration tier's CPU. A file that mocks a module resets them (adding-a-form.test.ts shows how).
        isolate: false,
        ...SETTINGS[tier],
      },
    })),
  },
});
