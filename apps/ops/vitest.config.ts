import { defineConfig } from 'vitest/config';

// The CLI's unit tests need no Redis; its commands are tested as a real process in test/integration/ops-*.
export default defineConfig({ test: { testTimeout: 10_000 } });
