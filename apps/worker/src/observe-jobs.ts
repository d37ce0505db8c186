import { scrubPii } from '@forms/observability';
import { JOB_LOG_ROWS, RECORD_INDEX_MAX, RECORD_INDEX_TTL_MS, recordIndexKey } from '@forms/schemas';
import { Job, type Worker } from 'bullmq';
import type { Logger } from 'pino';
import type { WorkerRedis } from './create-worker-redis.ts';
import { errorKind } from './error-kind.ts';
import type { WorkerMetrics } from './worker-metrics.ts';

type Envelope = { submissionId?: string; recordId?: string; kind?: string; acceptedAt?: string; requestId?: string };

const envelope = (job: Job): Envelope => (job.data ?? {}) as Envelope;

/**
 * Everything the worker records about jobs besides doing them, hung on BullMQ's events so the job path
 * itself stays as it was:
 * - logs with the job's request id (the gateway's X-Request-Id), never its data: a grep for a request
 *   id follows a submission from the gateway's answer to the CRM write (the logger makes error text
 *   log-safe: see logSafeText);
 * - metrics (duration, end-to-end delay, retries, failures by kind);
 * - each failed attempt's time and reason in the job's own log, for `ops show` (BullMQ keeps only the
 *   last reason); the newest `JOB_LOG_ROWS` kept;
 * - the recordId → submission index for contacts (see recordIndexKey), written when a worker first takes
 *   the job, off the job's path (not awaited).
 */
export function observeJobs(
  worker: Worker,
  {
    redis,
    queueName,
    metrics,
    logger,
  }: { redis: WorkerRedis; queueName: string; metrics: WorkerMetrics; logger: Logger },
): void {
  worker.on('active', (job) => {
    const e = envelope(job);
    logger.debug({ jobId: job.id, requestId: e.requestId, kind: e.kind, attempt: job.attemptsMade + 1 }, 'delivering');
    if (e.recordId && e.recordId !== job.id && job.attemptsMade === 0) {
      const key = recordIndexKey(queueName, e.recordId);
      redis
        .pipeline()
        .zadd(key, Date.parse(e.acceptedAt ?? '') || job.timestamp, String(job.id))
        .zremrangebyrank(key, 0, -RECORD_INDEX_MAX - 1)
        .pexpire(key, RECORD_INDEX_TTL_MS)
        .exec()
        .catch((err: Error) => logger.warn({ err: err.message, jobId: job.id }, 'record index not written'));
    }
  });

  worker.on('completed', (job, result: { crmRecordId?: string } | undefined) => {
    const e = envelope(job);
    const kind = e.kind ?? 'unknown';
    const now = Date.now();
    if (job.processedOn) metrics.jobDuration.observe({ kind, outcome: 'delivered' }, (now - job.processedOn) / 1000);
    const accepted = Date.parse(e.acceptedAt ?? '');
    if (accepted) metrics.deliveryDelay.observe({ kind }, Math.max(0, now - accepted) / 1000);
    logger.debug({ jobId: job.id, requestId: e.requestId, kind, crmRecordId: result?.crmRecordId }, 'delivered');
  });

  worker.on('failed', (job, err) => {
    if (!job) return;
    const e = envelope(job);
    const kind = e.kind ?? 'unknown';
    if (job.processedOn)
      metrics.jobDuration.observe({ kind, outcome: 'failed' }, (Date.now() - job.processedOn) / 1000);
    const final = err.name === 'UnrecoverableError' || job.attemptsMade >= (job.opts.attempts ?? 1);
    if (final) metrics.failures.inc({ kind, error_kind: errorKind(err) });
    else metrics.retries.inc({ kind });
    Job.addJobLog(
      worker,
      String(job.id),
      `${new Date().toISOString()} attempt ${job.attemptsMade}: ${err.message}`,
      JOB_LOG_ROWS,
    ).catch((logErr: Error) => logger.debug({ err: logErr.message, jobId: job.id }, 'attempt not logged on the job'));
    logger.warn(
      {
        jobId: job.id,
        requestId: e.requestId,
        job: job.name,
        kind,
        attemptsMade: job.attemptsMade,
        final,
        // The job's own values first (a CRM or database may quote any of them), then what the logger scrubs.
        err: scrubPii(err.message, (job.data as { data?: unknown } | undefined)?.data),
      },
      final ? 'delivery failed for good: in the failed set' : 'delivery failed; will retry',
    );
  });
}
