import type { ObjectStorage } from '@forms/object-storage';
import { queueTelemetry } from '@forms/observability';
import { KEEP_COMPLETED, retryDelay } from '@forms/schemas';
import { Worker } from 'bullmq';
import type { Logger } from 'pino';
import type { WorkerConfig } from './config.ts';
import { createWorkerRedis } from './create-worker-redis.ts';
import type { Crm } from './crm/crm.ts';
import { deliverSubmission } from './handlers/deliver-submission.ts';
import type { JudgeDeps } from './handlers/judge-job.ts';
import { createErasureCheck } from './handlers/refuse-erased.ts';
import { observeJobs } from './observe-jobs.ts';
import { createJudge } from './spam/create-judge.ts';
import { createWorkerMetrics, type WorkerMetrics } from './worker-metrics.ts';

/** BullMQ's per-minute completed/failed counts (read by `ops status`): one day of points, a few KiB. */
const METRICS_POINTS = 24 * 60;

/**
 * The BullMQ consumer. Its connection retries forever (`maxRetriesPerRequest: null`) so a Redis restart
 * pauses work instead of failing it. A job whose worker died is found by the stalled check after one lock
 * period and runs again; `maxStalledCount` is generous because a crash is not the job's fault, and the
 * CRM write is an idempotent upsert.
 */
export function createWorker({
  config,
  crm,
  storage,
  logger,
  metrics = createWorkerMetrics(),
}: {
  config: WorkerConfig;
  crm: Crm;
  storage?: ObjectStorage | undefined;
  logger: Logger;
  metrics?: WorkerMetrics;
}): Worker {
  const connection = createWorkerRedis(config.redis);
  // The judge reads its model and holds on the worker's connection (its commands wait out a Redis restart).
  const judge: JudgeDeps = createJudge({ config, redis: connection, counters: metrics.spamCounters, logger });
  // Counted around the driver, so every CRM's writes show in the same metric.
  const counted: Crm = {
    ...crm,
    deliver: (submission) =>
      crm.deliver(submission).then(
        (result) => {
          metrics.crmWrites.inc({ crm: crm.name, outcome: 'ok' });
          return result;
        },
        (err: unknown) => {
          metrics.crmWrites.inc({ crm: crm.name, outcome: 'error' });
          throw err;
        },
      ),
  };
  // With tracing on, each attempt is a consumer span in the trace of the request that added the job.
  const telemetry = queueTelemetry();
  const isErased = createErasureCheck({
    redis: connection,
    settings: config.redis,
    queueName: config.queueName,
    secret: config.erasureKey,
    previousSecret: config.erasureKeyPrevious,
  });
  const worker = new Worker(
    config.queueName,
    (job) =>
      deliverSubmission(job, counted, { storage, urlTtlSeconds: config.cvUrlTtlSeconds, logger }, isErased, judge),
    {
      connection,
      prefix: config.redis.prefix,
      concurrency: config.concurrency,
      lockDuration: config.lockDurationMs,
      stalledInterval: config.lockDurationMs,
      maxStalledCount: 5,
      removeOnComplete: KEEP_COMPLETED,
      metrics: { maxDataPoints: METRICS_POINTS },
      ...(telemetry ? { telemetry } : {}),
      settings: {
        backoffStrategy: (attemptsMade: number) =>
          retryDelay(attemptsMade, { baseDelayMs: config.retryBaseDelayMs, maxDelayMs: config.retryMaxDelayMs }),
      },
    },
  );
  observeJobs(worker, { redis: connection, queueName: config.queueName, metrics, logger });
  // A held job leaves the queue once complete, as when the gateway held it: the quarantine keeps it, and
  // `ops spam release` adds it again under the same id (an add is a no-op while a job of that id exists).
  worker.on('completed', (job, result: { held?: boolean } | undefined) => {
    if (result?.held) job.remove().catch((err) => logger.warn({ err, jobId: job.id }, 'held job not removed'));
  });
  worker.on('error', (err) => logger.error({ err }, 'worker error'));
  worker.on('closed', () => connection.disconnect());
  return worker;
}
