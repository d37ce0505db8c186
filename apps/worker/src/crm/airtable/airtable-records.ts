import { fetchWithCause } from '../../fetch-with-cause.ts';
import { AIRTABLE_MAX_RECORDS_PER_REQUEST, AirtableApiError, parseRetryAfter } from './airtable-client.ts';
import type { BaseRateLimiter } from './base-rate-limiter.ts';

/** Requests one erase or clean-up may make on a 429 before it gives up (each waits out the pause first). */
const RATE_LIMITED_TRIES = 5;

export type AirtableRecords = {
  /** The records `formula` matches (every page): each one's id and the value of `field`, the only one read. */
  find(table: string, formula: string, field: string): Promise<{ id: string; value: unknown }[]>;
  /** Deletes records by id, ten per request. */
  remove(table: string, ids: readonly string[]): Promise<number>;
  /** Sets fields of records by id (null clears a field), ten per request. */
  update(table: string, records: readonly { id: string; fields: Record<string, unknown> }[]): Promise<number>;
};

/**
 * The record calls erase and CV retention need, beside the driver's upserts: list by formula, delete and
 * update by id. Each request takes a slot from the base's shared limiter, as deliveries do, and a 429
 * pauses the base for every worker and is tried again after the pause.
 */
export function createAirtableRecords({
  apiKey,
  baseId,
  endpointUrl,
  timeoutMs,
  limiter,
  lockoutMs,
}: {
  apiKey: string;
  baseId: string;
  endpointUrl: string;
  timeoutMs: number;
  limiter: BaseRateLimiter;
  lockoutMs: number;
}): AirtableRecords {
  const tableUrl = (table: string) =>
    `${endpointUrl.replace(/\/+$/, '')}/v0/${encodeURIComponent(baseId)}/${encodeURIComponent(table)}`;

  async function call<T>(url: string, init: RequestInit = {}): Promise<T> {
    for (let attempt = 1; ; attempt++) {
      await limiter.acquire();
      const response = await fetchWithCause(url, {
        ...init,
        headers: { authorization: `Bearer ${apiKey}`, 'content-type': 'application/json' },
        signal: AbortSignal.timeout(timeoutMs),
      });
      const text = await response.text();
      if (response.ok) return JSON.parse(text) as T;
      const retryAfterMs = parseRetryAfter(response.headers.get('retry-after'));
      if (response.status === 429 && attempt < RATE_LIMITED_TRIES) {
        await limiter.pause(retryAfterMs ?? lockoutMs);
        continue;
      }
      // Airtable's own words, without the request: a formula or an id list may hold the address.
      const type = /"type"\s*:\s*"([A-Z_]+)"/.exec(text)?.[1] ?? /"error"\s*:\s*"([A-Z_]+)"/.exec(text)?.[1] ?? '';
      throw new AirtableApiError(response.status, type || 'UNKNOWN', `${init.method ?? 'GET'} refused`, retryAfterMs);
    }
  }

  return {
    async find(table, formula, field) {
      const found: { id: string; value: unknown }[] = [];
      let offset: string | undefined;
      // Bounded: 1,000 pages of 100 records.
      for (let page = 0; page < 1_000; page++) {
        const query = new URLSearchParams({ filterByFormula: formula, pageSize: '100' });
        query.append('fields[]', field);
        if (offset) query.set('offset', offset);
        const body = await call<{ records: { id: string; fields?: Record<string, unknown> }[]; offset?: string }>(
          `${tableUrl(table)}?${query}`,
        );
        found.push(...body.records.map((r) => ({ id: r.id, value: r.fields?.[field] })));
        offset = body.offset;
        if (!offset) return found;
      }
      throw new Error(`Airtable table ${table}: more than 100,000 records match`);
    },
    async remove(table, ids) {
      let removed = 0;
      for (let i = 0; i < ids.length; i += AIRTABLE_MAX_RECORDS_PER_REQUEST) {
        const query = new URLSearchParams();
        for (const id of ids.slice(i, i + AIRTABLE_MAX_RECORDS_PER_REQUEST)) query.append('records[]', id);
        const body = await call<{ records: { deleted: boolean }[] }>(`${tableUrl(table)}?${query}`, {
          method: 'DELETE',
        });
        removed += body.records.filter((r) => r.deleted).length;
      }
      return removed;
    },
    async update(table, records) {
      let updated = 0;
      for (let i = 0; i < records.length; i += AIRTABLE_MAX_RECORDS_PER_REQUEST) {
        const body = await call<{ records: unknown[] }>(tableUrl(table), {
          method: 'PATCH',
          body: JSON.stringify({ records: records.slice(i, i + AIRTABLE_MAX_RECORDS_PER_REQUEST) }),
        });
        updated += body.records.length;
      }
      return updated;
    },
  };
}

/** A formula string literal: Airtable's single quotes, with backslash and quote escaped. */
export function formulaText(value: string): string {
  return `'${value.replace(/\\/g, '\\\\').replace(/'/g, "\\'")}'`;
}
