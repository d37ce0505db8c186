import { startRedisServer } from './redis-server.ts';

export type TestRedis = { url: string; stop: () => Promise<void> };

/**
 * A Redis for tests: a container when a container runtime answers, else a `redis-server` started on a free
 * port. The probe is bounded so a machine without Docker falls back within about two seconds.
 */
export async function startTestRedis(): Promise<TestRedis> {
  if (await containerRuntimeAnswers()) {
    const { GenericContainer } = await import('testcontainers');
    const container = await new GenericContainer('redis:7-alpine')
      .withCommand(['redis-server', '--save', '', '--appendonly', 'no', '--maxmemory-policy', 'noeviction'])
      .withExposedPorts(6379)
      .start();
    return {
      url: `redis://${container.getHost()}:${container.getMappedPort(6379)}`,
      stop: async () => {
        await container.stop();
      },
    };
  }
  return startRedisServer();
}

/** True when a container runtime answers within `timeoutMs` (shared by the test Redis and the test S3). */
export async function containerRuntimeAnswers(timeoutMs = 2_000): Promise<boolean> {
  try {
    const { getContainerRuntimeClient } = await import('testcontainers');
    let timer: NodeJS.Timeout | undefined;
    const timeout = new Promise<never>((_, reject) => {
      timer = setTimeout(() => reject(new Error('probe timed out')), timeoutMs);
    });
    try {
      await Promise.race([getContainerRuntimeClient(), timeout]);
    } finally {
      clearTimeout(timer);
    }
    return true;
  } catch {
    return false;
  }
}
