import { defineConfig } from 'vitest/config';

export default defineConfig({
  test: {
    globalSetup: ['../../packages/local-services/src/vitest-redis-setup.ts'],
    testTimeout: 30_000,
    hookTimeout: 60_000,
  },
});
