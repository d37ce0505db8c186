import { once } from 'node:events';
import type { AddressInfo } from 'node:net';
import { openObjectStorage } from '@forms/object-storage';
import { createLogger } from '@forms/observability';
import { assertNoEviction, boundUrl, waitForRedis } from '@forms/runtime';
import type { Logger } from 'pino';
import { createApp } from './app.ts';
import type { GatewayConfig } from './config.ts';
import {
  type AbuseCounters,
  createAbuseCounters,
  createProducerRedis,
  createSubmissionQueue,
} from './submissions/index.ts';

/** `counters`: what the abuse controls turned away since start (for metrics). */
export type RunningGateway = { url: string; counters: AbuseCounters; stop: () => Promise<void> };

/** Connects, listens, and returns a stop that drains in-flight requests before closing Redis. */
export async function startGateway(
  config: GatewayConfig,
  logger: Logger = createLogger({ level: config.logLevel, base: { app: 'gateway' } }),
  {
    onFatal = (err: Error) => {
      logger.fatal(err.message);
      process.exit(1);
    },
  }: { onFatal?: (err: Error) => void } = {},
): Promise<RunningGateway> {
  if (!config.idKey)
    logger.warn(
      'gateway: ID_KEY is not set: contact ids are derived from the email without a secret, so a guessed email can be tested against one; set ID_KEY (docs/configuration.md)',
    );
  const redis = createProducerRedis(config.redis);
  redis.on('error', (err) => logger.debug({ err }, 'gateway redis error'));
  const queue = createSubmissionQueue(config.queueName, redis, config.redis.prefix);
  queue.on('error', (err) => logger.debug({ err }, 'gateway queue error'));
  // Without an offline queue, commands sent before the first connect fail: give Redis a moment to answer
  // before taking traffic. A gateway whose Redis is down still starts (healthz 200, readyz and submissions
  // 503 until it is back). When Redis is first reached, its eviction policy is checked before anything else.
  const checkPolicy = () => assertNoEviction(redis, { allowEviction: config.allowEviction });
  const ready = await waitForRedis(redis, { logger, what: 'gateway', signal: AbortSignal.timeout(3_000) }).then(
    () => true,
    () => false,
  );
  if (ready) await checkPolicy();
  else {
    logger.warn(`gateway: Redis (${config.redis.mode}) is not answering; answering 503 until it is`);
    redis.once('ready', () => void checkPolicy().catch(onFatal));
  }
  // Two attempts at most, each bounded by S3_TIMEOUT_MS, because a request is waiting.
  const storage = config.storage
    ? await openObjectStorage(config.storage, {
        maxAttempts: 2,
        logger,
        whileAway: 'applications are accepted without their CVs (cvUploadFailed) until it is back',
      })
    : undefined;
  const counters = createAbuseCounters();
  const abortHolds = new AbortController();
  const app = createApp({ config, queue, redis, logger, storage, counters, stopping: abortHolds.signal });
  const server = app.listen(config.port, config.host);
  await once(server, 'listening');
  // Once stopping, every answer closes its connection: a client keeping its connection alive would
  // otherwise go on sending requests on it, and `server.close()` would wait for ever.
  let stopping = false;
  server.on('request', (_req, res) => {
    if (stopping) res.setHeader('Connection', 'close');
  });
  const url = boundUrl(server.address() as AddressInfo);
  return {
    url,
    counters,
    async stop() {
      stopping = true;
      // Submissions held through a Redis transition are answered 503 (Retry-After) now, not at their hold's
      // end: the client tries again elsewhere, and the close below does not wait out REDIS_HOLD_MS.
      abortHolds.abort();
      await new Promise<void>((resolve) => server.close(() => resolve()));
      await queue.close();
      redis.disconnect();
      storage?.close();
    },
  };
}
