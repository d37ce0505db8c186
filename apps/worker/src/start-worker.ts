import { openObjectStorage } from '@forms/object-storage';
import { createLogger } from '@forms/observability';
import { assertNoEviction, waitForRedis } from '@forms/runtime';
import type { Logger } from 'pino';
import { closeWorker } from './close-worker.ts';
import type { WorkerConfig } from './config.ts';
import { createWorkerRedis } from './create-worker-redis.ts';
import type { Crm } from './crm/crm.ts';
import { openCrm } from './open-crm.ts';
import type { Eraser } from './privacy/erase-person.ts';
import { localEraseSocket, serveLocalErase, usesEmbeddedPglite } from './privacy/local-erase-socket.ts';
import { openEraser } from './privacy/open-eraser.ts';
import { watchErasureKey } from './privacy/watch-erasure-key.ts';
import { runMaintenance } from './run-maintenance.ts';
import { type MetricsServer, serveMetrics } from './serve-metrics.ts';
import { createWorker } from './worker.ts';
import { createWorkerMetrics, type WorkerMetrics } from './worker-metrics.ts';

/** `metricsUrl`: where this worker's /admin/metrics answers, when METRICS_PORT is set. */
export type RunningWorker = {
  crm: Crm;
  metrics: WorkerMetrics;
  metricsUrl: string | undefined;
  /** Why this worker is not ready (it holds every delivery), or undefined while it can deliver. */
  notReady: () => string | undefined;
  stop: () => Promise<void>;
};

/**
 * Picks the CRM, migrates it, and starts consuming. `stop` lets active jobs finish, then closes the CRM.
 * Tests may hand in a CRM they also read from (an in-memory PGlite cannot be opened twice).
 */
export async function startWorker(
  config: WorkerConfig,
  logger: Logger = createLogger({ level: config.logLevel, base: { app: 'worker' } }),
  { crm: given }: { crm?: Crm } = {},
): Promise<RunningWorker> {
  await checkRedis(config, logger);
  const metrics = createWorkerMetrics();
  const crm = given ?? (await openCrm(config, logger, metrics));
  const storage = config.storage
    ? await openObjectStorage(config.storage, {
        maxAttempts: 3,
        logger,
        whileAway: 'CV jobs will retry until it is back',
      })
    : undefined;
  const worker = createWorker({ config, crm, storage, logger, metrics });
  await worker.waitUntilReady();
  const watchRedis = createWorkerRedis(config.redis);
  const erasureKey = await watchErasureKey({
    redis: watchRedis,
    settings: config.redis,
    queueName: config.queueName,
    secret: config.erasureKey,
    previousSecret: config.erasureKeyPrevious,
    logger,
  });
  const maintenance = await runMaintenance({ config, crm, storage, logger });
  let server: MetricsServer | undefined;
  let eraser: Eraser | undefined;
  if (config.metricsPort !== undefined) {
    eraser = openEraser({ config, crm, storage, actor: 'admin-api' });
    server = await serveMetrics({
      registry: metrics.registry,
      port: config.metricsPort,
      host: config.metricsHost,
      adminToken: config.adminToken,
      adminTokenPrevious: config.adminTokenPrevious,
      eraser,
      notReady: erasureKey.notReady,
    });
    if (config.adminToken) logger.info({ url: server.url }, 'worker metrics listening');
    else logger.warn('METRICS_PORT is set but ADMIN_TOKEN is not: the metrics port answers 404 (admin surface off)');
  }
  // `ops erase` beside this process: the embedded PGlite is ours alone, so it asks us (local-erase-socket.ts).
  const localErase =
    !given && usesEmbeddedPglite(config)
      ? await serveLocalErase(localEraseSocket(config), openEraser({ config, crm, storage, actor: 'ops-cli' })).catch(
          (err: Error) => {
            // A DATA_DIR too long for a socket's path, say: the worker runs; only `ops erase` beside it is refused.
            logger.warn({ err: err.message }, 'ops erase socket not served: stop this worker to run ops erase');
            return undefined;
          },
        )
      : undefined;
  return {
    crm,
    metrics,
    metricsUrl: server?.url,
    notReady: erasureKey.notReady,
    async stop() {
      await server?.close();
      await localErase?.close();
      await erasureKey.close();
      watchRedis.disconnect();
      await eraser?.close();
      await maintenance.close();
      await closeWorker(worker, { withinMs: config.lockDurationMs, logger });
      await crm.close();
      storage?.close();
    },
  };
}

/**
 * Waits for Redis however long it is down (never fatal), then refuses to start on one that may evict
 * queued jobs. A short-lived connection of its own: the worker's connections are made after it.
 */
async function checkRedis(config: WorkerConfig, logger: Logger): Promise<void> {
  const redis = createWorkerRedis(config.redis);
  try {
    await waitForRedis(redis, { logger, what: 'worker' });
    await assertNoEviction(redis, { allowEviction: config.allowEviction });
  } finally {
    redis.disconnect();
  }
}
