import { configDefaults, defineConfig } from 'vitest/config';
import base from './vitest.config.ts';

/** `pnpm test:cluster`: every Redis Cluster test, the long ones `pnpm test` leaves out included. */
export default defineConfig({
  ...base,
  test: { ...base.test, include: ['cluster/**/*.test.ts'], exclude: configDefaults.exclude },
});
