import { createRequire } from 'node:module';
// Brings in the typing of inject('redisUrl').
import type {} from '@forms/local-services/vitest-redis-setup';
import { defineConfig } from 'vitest/config';

export default defineConfig({
  test: {
    globalSetup: [createRequire(import.meta.url).resolve('@forms/local-services/vitest-redis-setup')],
    testTimeout: 30_000,
    hookTimeout: 60_000,
  },
});
