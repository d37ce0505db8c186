import { randomUUID } from 'node:crypto';
import { loadConfig as gatewayConfig, type RunningGateway, startGateway } from '@forms/gateway';
import {
  createPostgresCrm,
  createWorkerRedis,
  type Database,
  type RunningWorker,
  startWorker,
  loadConfig as workerConfig,
} from '@forms/worker';
import { Queue } from 'bullmq';
import { pino } from 'pino';
import { inject } from 'vitest';
import { openTestDatabase, type TestDatabase } from './crm-database.ts';

export type Pipeline = {
  /** The env both apps were configured with (the test Redis, a unique queue, silent logs, plus `extraEnv`). */
  env: Record<string, string>;
  db: Database;
  gateway: RunningGateway;
  /** Started with the pipeline unless `withWorker: false`; then by `startWorker()`. */
  worker: RunningWorker | undefined;
  /** The pipeline's queue, for inspecting jobs. */
  queue: Queue;
  startWorker: () => Promise<RunningWorker>;
  /** Stops gateway then worker, closes the store and removes the queue. */
  stop: () => Promise<void>;
};

/**
 * The whole pipeline in this process, as the cross-app tests need it: a fresh CRM store (PGlite, or a
 * database on DATABASE_URL), a worker writing to it, and a gateway listening on a free port, all on the test
 * Redis under a queue of their own; on a Redis Cluster instead when `extraEnv` names REDIS_CLUSTER_NODES.
 */
export async function startPipeline(
  extraEnv: Record<string, string> = {},
  { withWorker = true } = {},
): Promise<Pipeline> {
  const env = {
    ...(extraEnv.REDIS_CLUSTER_NODES ? {} : { REDIS_URL: inject('redisUrl') }),
    QUEUE_NAME: `it-${randomUUID()}`,
    LOG_LEVEL: 'silent',
    ...extraEnv,
  };
  const store: TestDatabase = await openTestDatabase();
  const db = await store.read();
  // The apps' own reading of the env, so the test's queue is theirs: same Redis (or cluster), same prefix.
  const settings = workerConfig(env).redis;
  const redis = createWorkerRedis(settings);
  const queue = new Queue(env.QUEUE_NAME, { connection: redis, prefix: settings.prefix });
  const pipeline: Pipeline = {
    env,
    db,
    gateway: undefined as unknown as RunningGateway,
    worker: undefined,
    queue,
    async startWorker() {
      pipeline.worker = await startWorker(workerConfig(env), pino({ level: 'silent' }), { crm: createPostgresCrm(db) });
      return pipeline.worker;
    },
    async stop() {
      await pipeline.gateway?.stop();
      await pipeline.worker?.stop(); // closes the CRM, and with it the database
      await store.close().catch(() => {});
      await queue.obliterate({ force: true }).catch(() => {});
      await queue.close();
      redis.disconnect();
    },
  };
  if (withWorker) await pipeline.startWorker();
  pipeline.gateway = await startGateway(gatewayConfig({ ...env, PORT: '0', HOST: '127.0.0.1' }));
  return pipeline;
}
