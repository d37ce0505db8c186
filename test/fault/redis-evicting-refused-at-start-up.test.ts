import { randomUUID } from 'node:crypto';
import { loadConfig as gatewayConfig, startGateway } from '@forms/gateway';
import { freePort, type LocalRedis, startRedisServer } from '@forms/local-services';
import { startWorker, loadConfig as workerConfig } from '@forms/worker';
import { pino } from 'pino';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { spawnGateway } from '../support/spawn-app.ts';
import { eventually } from '../support/wait.ts';

// A Redis that may evict keys can silently drop acknowledged jobs: both apps refuse it, naming the fix.
let redis: LocalRedis;
const silent = pino({ level: 'silent' });
const env = () => ({
  PORT: '0',
  HOST: '127.0.0.1',
  REDIS_URL: redis.url,
  QUEUE_NAME: `evict-${randomUUID()}`,
  LOG_LEVEL: 'silent',
});

beforeAll(async () => {
  redis = await startRedisServer({ args: ['--maxmemory-policy', 'allkeys-lru'] });
});
afterAll(async () => {
  await redis?.stop();
});

describe('a Redis whose maxmemory-policy is not noeviction', () => {
  it('stops the gateway at start-up with a message naming the setting and the override', async () => {
    await expect(startGateway(gatewayConfig(env()), silent)).rejects.toThrow(
      /maxmemory-policy is "allkeys-lru".*noeviction.*REDIS_ALLOW_EVICTION=true/s,
    );
  });

  it('stops every process of GATEWAY_PROCESSES=2, and their primary exits 1', async () => {
    const { REDIS_URL, QUEUE_NAME } = env();
    const refused = await spawnGateway({ REDIS_URL, QUEUE_NAME, GATEWAY_PROCESSES: '2' }).then(
      () => new Error('started'),
      (err: Error) => err,
    );
    expect(refused.message).toMatch(/exit code 1/);
    expect(refused.message).toMatch(/maxmemory-policy is \\"allkeys-lru\\"/);
    expect(refused.message).toMatch(/exited \(code 1\) before it listened; stopping the others/);
  }, 60_000);

  it('stops the worker at start-up the same way', async () => {
    await expect(startWorker(workerConfig(env()), silent)).rejects.toThrow(
      /maxmemory-policy is "allkeys-lru".*noeviction.*REDIS_ALLOW_EVICTION=true/s,
    );
  });

  it('is accepted with REDIS_ALLOW_EVICTION=true', async () => {
    const gateway = await startGateway(gatewayConfig({ ...env(), REDIS_ALLOW_EVICTION: 'true' }), silent);
    await gateway.stop();
  });

  it('is refused when Redis appears only after the gateway started, through onFatal', async () => {
    const port = await freePort();
    const fatal: Error[] = [];
    const gateway = await startGateway(gatewayConfig({ ...env(), REDIS_URL: `redis://127.0.0.1:${port}` }), silent, {
      onFatal: (err) => fatal.push(err),
    });
    const late = await startRedisServer({ port, args: ['--maxmemory-policy', 'volatile-lru'] });
    try {
      await eventually(async () => fatal.length > 0, { timeoutMs: 15_000 });
      expect(fatal[0]!.message).toMatch(/maxmemory-policy is "volatile-lru"/);
    } finally {
      await gateway.stop();
      await late.stop();
    }
  });
});
