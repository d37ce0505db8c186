import { Redis } from 'ioredis';
import type { Logger } from 'pino';
import type { Crm } from '../crm.ts';
import { createAirtableClient } from './airtable-client.ts';
import { loadAirtableMapping, toAirtableWrite, type AirtableMapping } from './airtable-mapping.ts';
import { createBaseRateLimiter } from './base-rate-limiter.ts';
import { createUpsertBatcher, type BatcherStats } from './upsert-batcher.ts';

export type AirtableSettings = {
  apiKey: string;
  baseId: string;
  endpointUrl: string;
  /** Requests per second actually sent to the base, by all processes together. */
  requestsPerSecond: number;
  /** Pause after a 429 that carries no Retry-After (Airtable's lock-out is 30 s). */
  lockoutMs: number;
  requestTimeoutMs: number;
  /** The mapping file; the shipped `airtable-mapping.json` when undefined. */
  mappingFile: string | undefined;
};

export type AirtableCrm = Crm & { stats(): BatcherStats };

/**
 * The Airtable CRM: every submission becomes one upserted record (see `toAirtableWrite`), sent in
 * batched requests at the base's shared rate. It owns one Redis connection, for the rate limit.
 */
export function createAirtableCrm({
  settings,
  redisUrl,
  logger,
  mapping = loadAirtableMapping(settings.mappingFile),
}: {
  settings: AirtableSettings;
  redisUrl: string;
  logger: Logger;
  mapping?: AirtableMapping;
}): AirtableCrm {
  // Retries forever like the worker's own connection: a Redis restart delays deliveries, it does not fail them.
  const redis = new Redis(redisUrl, { maxRetriesPerRequest: null });
  redis.on('error', (err) => logger.warn({ err: err.message }, 'airtable rate-limit redis error'));
  const client = createAirtableClient({ ...settings, timeoutMs: settings.requestTimeoutMs });
  const limiter = createBaseRateLimiter({ redis, baseId: settings.baseId, requestsPerSecond: settings.requestsPerSecond });
  const batcher = createUpsertBatcher({ client, limiter, lockoutMs: settings.lockoutMs, logger });
  return {
    name: 'airtable',
    deliver: (submission) => batcher.enqueue(toAirtableWrite(submission, mapping), submission.acceptedAt),
    stats: () => batcher.stats(),
    async close() {
      await batcher.close();
      redis.disconnect();
    },
  };
}
