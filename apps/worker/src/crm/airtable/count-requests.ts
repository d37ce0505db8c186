import { AIRTABLE_REQUEST_BUCKET_MS, airtableBaseKeys } from '@forms/schemas';
import type { WorkerRedis } from '../../create-worker-redis.ts';
import type { WorkerMetrics } from '../../worker-metrics.ts';
import { AirtableApiError, type AirtableClient } from './airtable-client.ts';

/**
 * Wraps the client to count each request: by status in the worker's metrics, and in a 10-second Redis
 * bucket under the base's keys, so `ops status` can say how many requests the base got in the last minute
 * from every worker process together. The Redis write is one pipelined INCR + PEXPIRE, not awaited by the
 * request: at most a few a second (the base's rate limit), and a failed count never fails a delivery.
 */
export function countRequests(
  client: AirtableClient,
  { redis, baseId, metrics }: { redis: WorkerRedis; baseId: string; metrics: WorkerMetrics | undefined },
): AirtableClient {
  const keys = airtableBaseKeys(baseId);
  const count = (status: string) => {
    metrics?.crmRequests.inc({ crm: 'airtable', status });
    if (status === '429') metrics?.crmRateLimited.inc({ crm: 'airtable' });
    const key = keys.requests(Math.floor(Date.now() / AIRTABLE_REQUEST_BUCKET_MS));
    redis
      .pipeline()
      .incr(key)
      .pexpire(key, 12 * AIRTABLE_REQUEST_BUCKET_MS)
      .exec()
      .catch(() => {});
  };
  return {
    async upsert(table, records, fieldsToMergeOn, submissions) {
      try {
        const result = await client.upsert(table, records, fieldsToMergeOn, submissions);
        count('200');
        return result;
      } catch (err) {
        count(
          err instanceof AirtableApiError
            ? String(err.status)
            : (err as Error).name === 'TimeoutError'
              ? 'timeout'
              : 'network',
        );
        throw err;
      }
    },
  };
}
