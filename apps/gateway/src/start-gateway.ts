import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { openObjectStorage } from '@forms/object-storage';
import { createLogger } from '@forms/observability';
import { assertNoEviction, boundUrl, exitProcess, listenOn, waitForRedis, watchSharedSecret } from '@forms/runtime';
import { SECRET_DIFFERS_TTL_MS, secretCheckValue, secretDiffersReason, sharedSecretKeys } from '@forms/schemas';
import type { Logger } from 'pino';
import { createApp } from './app.ts';
import type { GatewayConfig } from './config.ts';
import {
  type AbuseCounters,
  createAbuseCounters,
  createProducerRedis,
  createSubmissionQueue,
  watchRedisOutage,
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
      void exitProcess(1);
    },
    alsoNotReady,
  }: {
    onFatal?: (err: Error) => void;
    /** Another part of this process whose readiness /readyz reports too (`pnpm start`'s worker). */
    alsoNotReady?: (() => string | undefined) | undefined;
  } = {},
): Promise<RunningGateway> {
  if (!config.idKey)
    logger.warn(
      'gateway: ID_KEY is not set: contact ids are derived from the email without a secret, so a guessed email can be tested against one; set ID_KEY (docs/configuration.md)',
    );
  const redis = createProducerRedis(config.redis);
  // Watched from before its first connect, so a Redis down since start is known as such.
  const redisOutageMs = watchRedisOutage(redis);
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
  // Every gateway must derive the same ids: one whose ID_KEY differs from the recorded one is not ready and
  // takes no submission (docs/configuration.md#shared-secrets). Checked again once Redis answers, if it did not.
  const idKey = await watchSharedSecret({
    redis,
    keys: sharedSecretKeys(config.redis, config.queueName, 'ID_KEY'),
    values: [secretCheckValue('ID_KEY', config.idKey)],
    variable: 'ID_KEY',
    reason: secretDiffersReason('ID_KEY', 'this gateway'),
    logger,
    ttlMs: SECRET_DIFFERS_TTL_MS,
  });
  if (!ready) redis.once('ready', () => void idKey.check());
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
  const app = createApp({
    config,
    queue,
    redis,
    logger,
    storage,
    counters,
    notReady: () => idKey.notReady() ?? alsoNotReady?.(),
    refuseSubmissions: idKey.differs,
    stopping: abortHolds.signal,
    redisOutageMs,
  });
  const server = createServer(app.callback());
  await listenOn(server, { port: config.port, host: config.host, variable: 'PORT' });
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
      await idKey.close();
      await queue.close();
      redis.disconnect();
      storage?.close();
    },
  };
}
