import { AIRTABLE_REQUEST_BUCKET_MS, airtableBaseKeys } from '@forms/schemas';
import type { OpsRedis } from './open-queue.ts';

export type CrmLimits =
  | { crm: 'unknown'; note: string }
  | {
      crm: 'airtable';
      baseId: string;
      paused: boolean;
      pausedUntil: string | undefined;
      /** Why, when the worker recorded one (a credentials pause, say); raw text as found. */
      pauseReason: string | undefined;
      rateLimitedTotal: number;
      requestsLastMinute: number;
      /** Keys under the base that this reader does not know, shown raw rather than hidden. */
      other: Record<string, string>;
    };

/**
 * Candidates for a pause reason another part of the worker may record (a "paused: credentials" state is
 * being added); read if present, never required. Unknown shapes are shown raw.
 */
const REASON_SUFFIXES = ['paused-reason', 'pause-reason', 'paused-credentials', 'credentials-paused', 'paused-by'];

/**
 * The Airtable base's shared rate-limit state as the worker keeps it in Redis (see airtableBaseKeys):
 * paused until when and why, 429s counted, requests in the last minute. One pipelined round trip, and
 * tolerant: a key of an unexpected type or a non-numeric value is reported as found, not an error.
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
  const reasonKeys = REASON_SUFFIXES.map((suffix) => keys.pausedUntil.replace(/paused-until$/, suffix));
  const named = [keys.pausedUntil, keys.rateLimited, ...reasonKeys];
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
  let pauseReason: string | undefined;
  reasonKeys.forEach((key, i) => {
    const value = text(values[i + 2]);
    if (value !== undefined) pauseReason = pauseReason ? `${pauseReason}; ${value}` : value;
    if (value !== undefined) other[key] = value;
  });
  return {
    crm: 'airtable',
    baseId,
    paused: pausedUntil !== undefined || pauseReason !== undefined,
    pausedUntil,
    pauseReason,
    rateLimitedTotal: Number(text(values[1]) ?? 0) || 0,
    requestsLastMinute: requestCounts.reduce((sum, n) => sum + (Number(n) || 0), 0),
    other,
  };
}
