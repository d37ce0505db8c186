import { randomUUID } from 'node:crypto';
import { loadConfig, type RunningGateway, startGateway } from '@forms/gateway';
import { type LocalRedis, startRedisServer } from '@forms/local-services';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { eventually } from '../support/wait.ts';

// This test stops and restarts its own redis-server, so it never touches the shared test Redis.
let redis: LocalRedis;
let gateway: RunningGateway;

beforeAll(async () => {
  redis = await startRedisServer();
  gateway = await startGateway(
    loadConfig({
      PORT: '0',
      HOST: '127.0.0.1',
      REDIS_URL: redis.url,
      QUEUE_NAME: `down-${randomUUID()}`,
      LOG_LEVEL: 'silent',
    }),
  );
});
afterAll(async () => {
  await gateway?.stop();
  await redis?.stop();
});

function submit() {
  return fetch(`${gateway.url}/api/contact`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ email: `${randomUUID()}@acme.io` }),
  });
}

describe('Redis down at enqueue', () => {
  it('answers 503 QUEUE_UNAVAILABLE with Retry-After within about a second, then recovers without a restart', async () => {
    expect((await submit()).status).toBe(200);

    await redis.stop();
    for (let i = 0; i < 3; i++) {
      const started = performance.now();
      const res = await submit();
      const elapsed = performance.now() - started;
      expect(res.status).toBe(503);
      expect(res.headers.get('retry-after')).toBe('5');
      expect(await res.json()).toMatchObject({ code: 'QUEUE_UNAVAILABLE', error: 'queue_unavailable' });
      expect(elapsed).toBeLessThan(1_500);
    }
    expect((await fetch(`${gateway.url}/readyz`)).status).toBe(503);
    expect((await fetch(`${gateway.url}/healthz`)).status).toBe(200);

    redis = await startRedisServer({ port: redis.port });
    await eventually(async () => (await submit()).status === 200, { timeoutMs: 10_000, everyMs: 200 });
    expect((await fetch(`${gateway.url}/readyz`)).status).toBe(200);
  });

  it('answers 503 within the enqueue deadline when Redis hangs (SIGSTOP), and recovers when it resumes', async () => {
    expect((await submit()).status).toBe(200);
    redis.process.kill('SIGSTOP');
    try {
      const started = performance.now();
      const res = await submit();
      expect(res.status).toBe(503);
      expect(performance.now() - started).toBeLessThan(1_500);
    } finally {
      redis.process.kill('SIGCONT');
    }
    await eventually(async () => (await submit()).status === 200, { timeoutMs: 10_000, everyMs: 200 });
  });
});
