import { createRequire } from 'node:module';
// Brings in the typing of inject('redisUrl').
import type {} from '@forms/local-services/vitest-redis-setup';
import { defineConfig } from 'vitest/config';
import { type Tier, testFiles } from './scripts/test-tiers.ts';

const require = createRequire(import.meta.url);
const redisSetup = require.resolve('@forms/local-services/vitest-redis-setup');
const filesOf = (tier: Tier) => testFiles().flatMap((t) => (t.tier === tier ? [t.file] : []));

/**
 * One vitest project per tier (scripts/test-tiers.ts says which file is in which). `pnpm test` runs them one
 * after another; a run of several at once (a file list) takes them in the same order, by `groupOrder`.
 */
export default defineConfig({
  test: {
    projects: [
      { test: { name: 'unit', include: filesOf('unit'), testTimeout: 10_000, sequence: { groupOrder: 0 } } },
      {
        test: {
          name: 'integration',
          sequence: { groupOrder: 1 },
          include: filesOf('integration'),
          globalSetup: [redisSetup],
          testTimeout: 30_000,
          hookTimeout: 60_000,
          // Each file has its own queue (and servers on free ports), so two run side by side, one per core.
          maxWorkers: 2,
        },
      },
      {
        test: {
          name: 'postgres',
          sequence: { groupOrder: 2 },
          include: filesOf('postgres'),
          globalSetup: [redisSetup, './test/support/postgres-template-setup.ts'],
          testTimeout: 30_000,
          hookTimeout: 60_000,
          maxWorkers: 2,
        },
      },
      {
        test: {
          name: 'fault',
          sequence: { groupOrder: 3 },
          include: filesOf('fault'),
          globalSetup: [redisSetup, './test/support/postgres-template-setup.ts'],
          testTimeout: 30_000,
          hookTimeout: 60_000,
          // Kills, outages and rate measurements under load: one at a time keeps their timings honest on 2 cores.
          fileParallelism: false,
        },
      },
      {
        test: {
          name: 'cluster',
          sequence: { groupOrder: 4 },
          include: filesOf('cluster'),
          globalSetup: [redisSetup],
          testTimeout: 30_000,
          hookTimeout: 60_000,
          fileParallelism: false,
        },
      },
    ],
  },
});
