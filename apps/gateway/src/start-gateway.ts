import { once } from 'node:events';
import type { Redis } from 'ioredis';
import type { AddressInfo } from 'node:net';
import { pino, type Logger } from 'pino';
import { createApp } from './app.ts';
import { openObjectStorage } from '@forms/object-storage';
import type { GatewayConfig } from './config.ts';
import { createProducerRedis, createSubmissionQueue } from './queue.ts';

export type RunningGateway = { url: string; stop: () => Promise<void> };

/** Connects, listens, and returns a stop that drains in-flight requests before closing Redis. */
export async function startGateway(config: GatewayConfig, logger: Logger = pino({ level: config.logLevel })): Promise<RunningGateway> {
  const redis = createProducerRedis(config.redisUrl);
  redis.on('error', (err) => logger.debug({ err }, 'gateway redis error'));
  const queue = createSubmissionQueue(config.queueName, redis);
  queue.on('error', (err) => logger.debug({ err }, 'gateway queue error'));
  // Without an offline queue, commands sent before the first connect fail: give Redis a moment to answer
  // before taking traffic. A gateway whose Redis is down still starts (and answers 503 until it is back).
  await waitUntilReady(redis, 3_000);
  // Two attempts at most, each bounded by S3_TIMEOUT_MS, because a request is waiting.
  const storage = config.storage
    ? await openObjectStorage(config.storage, { maxAttempts: 2, logger, whileAway: 'applications are accepted without their CVs (cvUploadFailed) until it is back' })
    : undefined;
  const app = createApp({ config, queue, redis, logger, storage });
  const server = app.listen(config.port, config.host);
  await once(server, 'listening');
  const { port } = server.address() as AddressInfo;
  const url = `http://127.0.0.1:${port}`;
  return {
    url,
    async stop() {
      await new Promise<void>((resolve) => server.close(() => resolve()));
      await queue.close();
      redis.disconnect();
      storage?.close();
    },
  };
}

async function waitUntilReady(redis: Redis, timeoutMs: number): Promise<void> {
  if (redis.status === 'ready') return;
  let timer: NodeJS.Timeout | undefined;
  await Promise.race([once(redis, 'ready'), new Promise((resolve) => (timer = setTimeout(resolve, timeoutMs)))]);
  clearTimeout(timer);
}
