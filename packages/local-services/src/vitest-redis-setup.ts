import 'vitest';
import type { TestProject } from 'vitest/node';
import { startTestRedis } from './test-redis.ts';

/**
 * Vitest global setup: one Redis for a package's whole test run, handed to tests as `inject('redisUrl')`.
 * Tests isolate from each other by a unique queue name (and so key prefix) each.
 */
export default async function setup(project: TestProject) {
  const redis = await startTestRedis();
  project.provide('redisUrl', redis.url);
  return async () => {
    await redis.stop();
  };
}

declare module 'vitest' {
  export interface ProvidedContext {
    redisUrl: string;
  }
}
