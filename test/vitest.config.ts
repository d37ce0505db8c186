import { createRequire } from 'node:module';
// Brings in the typing of inject('redisUrl').
import type {} from '@forms/local-services/vitest-redis-setup';
import { configDefaults, defineConfig } from 'vitest/config';

export default defineConfig({
  test: {
    globalSetup: [createRequire(import.meta.url).resolve('@forms/local-services/vitest-redis-setup')],
    testTimeout: 30_000,
    hookTimeout: 60_000,
    // Cross-app tests start servers, spawn workers and stop Redis: one file at a time keeps timings honest on 2 cores.
    fileParallelism: false,
    // The long Redis Cluster tests (about 4 minutes together on two busy cores) and the ops CLI on a cluster run in `pnpm test:cluster`,
    // which CI also runs; `pnpm test` keeps the failover with durable acks, the guarantee they exist for.
    exclude: [
      ...configDefaults.exclude,
      'cluster/two-gateways-two-workers-deliver-once.test.ts',
      'cluster/master-killed-without-durable-acks.test.ts',
      'cluster/ops-cli-refused-redis-cluster.test.ts',
    ],
  },
});
