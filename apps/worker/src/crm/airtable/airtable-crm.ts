import { activeTraceLink } from '@forms/observability';
import type { RedisSettings } from '@forms/schemas';
import type { Logger } from 'pino';
import { createWorkerRedis } from '../../create-worker-redis.ts';
import type { WorkerMetrics } from '../../worker-metrics.ts';
import type { Crm } from '../crm.ts';
import { createAirtableClient } from './airtable-client.ts';
import { type AirtableMapping, loadAirtableMapping, toAirtableWrite } from './airtable-mapping.ts';
import { createAirtableRecords } from './airtable-records.ts';
import { watchBaseFault } from './base-fault.ts';
import { createBaseRateLimiter } from './base-rate-limiter.ts';
import { countRequests } from './count-requests.ts';
import { clearAirtableCvLinks, eraseAirtableRecords } from './erase-airtable-records.ts';
import { markAirtableSpam } from './mark-airtable-spam.ts';
import { createMergeKeyGuard, mergeKeyNames } from './merge-key-guard.ts';
import type { BatcherStats } from './send-batch.ts';
import { createUpsertBatcher } from './upsert-batcher.ts';

export type AirtableSettings = {
  apiKey: string;
  baseId: string;
  endpointUrl: string;
  /** Airtable's published limit: requests per second per base. */
  rateLimit: number;
  /** Requests per second actually sent to the base, by all processes together (under `rateLimit`). */
  requestsPerSecond: number;
  /** Pause after a 429 that carries no Retry-After (Airtable's lock-out is 30 s). */
  lockoutMs: number;
  requestTimeoutMs: number;
  /** After a 401, 403 or 404, how often the paused base is probed (with the request that met it). */
  faultProbeMs: number;
  /** The mapping file; the shipped `airtable-mapping.json` when undefined. */
  mappingFile: string | undefined;
};

export type AirtableCrm = Crm & { stats(): BatcherStats };

/**
 * The Airtable CRM: every submission becomes one upserted record (see `toAirtableWrite`), sent in
 * batched requests at the base's shared rate. It owns one Redis connection, for the rate limit and the
 * base's fault state.
 */
export function createAirtableCrm({
  settings,
  redis: redisSettings,
  queueName,
  logger,
  mapping = loadAirtableMapping(settings.mappingFile),
  metrics,
}: {
  settings: AirtableSettings;
  redis: RedisSettings;
  /** The queue whose jobs this driver delivers: its name hash-tags the per-record keys. */
  queueName: string;
  logger: Logger;
  mapping?: AirtableMapping;
  metrics?: WorkerMetrics | undefined;
}): AirtableCrm {
  // Retries forever like the worker's own connection: a Redis restart delays deliveries, it does not fail them.
  const redis = createWorkerRedis(redisSettings);
  redis.on('error', (err) => logger.warn({ err: err.message }, 'airtable rate-limit redis error'));
  const client = countRequests(createAirtableClient({ ...settings, timeoutMs: settings.requestTimeoutMs }), {
    redis,
    baseId: settings.baseId,
    metrics,
  });
  const limiter = createBaseRateLimiter({
    redis,
    baseId: settings.baseId,
    limit: settings.rateLimit,
    requestsPerSecond: settings.requestsPerSecond,
  });
  const batcher = createUpsertBatcher({
    client,
    limiter,
    lockoutMs: settings.lockoutMs,
    faultProbeMs: settings.faultProbeMs,
    baseFault: watchBaseFault({ redis, baseId: settings.baseId, logger }),
    // Twice the request timeout: a request we gave up on may still land within about that long.
    guard: createMergeKeyGuard({ redis, queueName, leaseMs: 2 * settings.requestTimeoutMs }),
    // A request may leave up to this long after its records were claimed and still end (its timeout)
    // before their leases do.
    maxClaimHoldMs: settings.requestTimeoutMs / 2,
    logger,
  });
  // Erase, CV retention and spam marks: list, delete and update by id, through the same shared limiter.
  const records = createAirtableRecords({ ...settings, timeoutMs: settings.requestTimeoutMs, limiter });
  return {
    name: 'airtable',
    deliver: (submission) =>
      batcher.enqueue({ ...toAirtableWrite(submission, mapping), trace: activeTraceLink() }, submission.acceptedAt),
    async erase(target, options) {
      const erased = await eraseAirtableRecords(records, mapping, target, options);
      // The driver's own per-record state (field stamps, the Airtable id) goes with the records.
      if (!options.dryRun) {
        const tables = new Set(Object.values(mapping.kinds).map((k) => k.table));
        const keys = [...tables].flatMap((table) =>
          [target.email, ...target.submissionIds].flatMap((value) => mergeKeyNames(queueName, table, value)),
        );
        for (let i = 0; i < keys.length; i += 500) await redis.del(...keys.slice(i, i + 500));
      }
      return erased;
    },
    clearCvLinks: (submissionIds) => clearAirtableCvLinks(records, mapping, submissionIds),
    markSpam: (targets) => markAirtableSpam(records, mapping, targets),
    stats: () => batcher.stats(),
    async close() {
      await batcher.close();
      redis.disconnect();
    },
  };
}
