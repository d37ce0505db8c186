import { defineConfig } from 'vitest/config';
// Brings in the typing of inject('redisUrl').
import type {} from '../packages/local-services/src/vitest-redis-setup.ts';

export default defineConfig({
  test: {
    globalSetup: ['../packages/local-services/src/vitest-redis-setup.ts'],
    testTimeout: 30_000,
    hookTimeout: 60_000,
    // Cross-app tests start servers, spawn workers and stop Redis: one file at a time keeps timings honest on 2 cores.
    fileParallelism: false,
  },
});
