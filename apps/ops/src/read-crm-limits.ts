import {
  AIRTABLE_REQUEST_BUCKET_MS,
  type AirtableBaseFault,
  airtableBaseKeys,
  parseAirtableBaseFault,
} from '@forms/schemas';
import type { OpsRedis } from './open-queue.ts';

export type CrmLimits =
  | { crm: 'unknown'; note: string }
  | {
      crm: 'airtable';
      baseId: string;
      paused: boolean;
      /** Until when the worker holds requests back after a 429 (ISO time). */
      pausedUntil: string | undefined;
      /** The credential or configuration fault the worker paused the base for, naming the setting to fix. */
      fault: AirtableBaseFault | undefined;
      rateLimitedTotal: number;
      requestsLastMinute: number;
      /** Keys under the base that this reader does not know, shown raw rather than hidden. */
      other: Record<string, string>;
    };

/**
 * The Airtable base's shared rate-limit state as the worker keeps it in Redis (see airtableBaseKeys):
 * paused until when after a 429, paused for a fault (a refused credential, a missing base), 429s counted,
 * requests in the last minute. Tolerant: a key of an unexpected type or a value this reader cannot parse is
 * reported as found, not an error.
 */
export async function readCrmLimits(redis: OpsRedis, baseId: string | undefined, now = Date.now()): Promise<CrmLimits> {
  if (!baseId)
    return {
      crm: 'unknown',
      note: 'AIRTABLE_BASE_ID is not set: no Airtable base to read (Postgres has no shared limit)',
    };
  const keys = airtableBaseKeys(baseId);
  const bucket = Math.floor(now / AIRTABLE_REQUEST_BUCKET_MS);
  const requestKeys = Array.from({ length: 6 }, (_, i) => keys.requests(bucket - i));
  const named = [keys.pausedUntil, keys.rateLimited, keys.fault];
  const pipeline = redis.pipeline();
  for (const key of named) pipeline.type(key);
  pipeline.mget(...requestKeys);
  const types = (await pipeline.exec())!.map(([, value]) => value as string);
  const requestCounts = types.pop() as unknown as (string | null)[];

  const read = redis.pipeline();
  named.forEach((key, i) => {
    if (types[i] === 'string') read.get(key);
    else if (types[i] === 'hash') read.hgetall(key);
    else read.echo('');
  });
  const values = (await read.exec())!.map(([, value]) => value);
  const text = (value: unknown) =>
    value === '' || value === null || value === undefined
      ? undefined
      : typeof value === 'string'
        ? value
        : JSON.stringify(value);

  const pausedRaw = text(values[0]);
  const pausedMs = Number(pausedRaw);
  const other: Record<string, string> = {};
  let pausedUntil: string | undefined;
  if (pausedRaw !== undefined) {
    if (Number.isFinite(pausedMs)) pausedUntil = pausedMs > now ? new Date(pausedMs).toISOString() : undefined;
    else other[keys.pausedUntil] = pausedRaw; // a shape this reader does not know
  }
  const faultRaw = text(values[2]);
  const fault = parseAirtableBaseFault(faultRaw);
  if (faultRaw !== undefined && !fault) other[keys.fault] = faultRaw; // a shape this reader does not know
  return {
    crm: 'airtable',
    baseId,
    paused: pausedUntil !== undefined || fault !== undefined,
    pausedUntil,
    fault,
    rateLimitedTotal: Number(text(values[1]) ?? 0) || 0,
    requestsLastMinute: requestCounts.reduce((sum, n) => sum + (Number(n) || 0), 0),
    other,
  };
}
