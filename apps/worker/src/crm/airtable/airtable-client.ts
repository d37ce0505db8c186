/**
 * A small Airtable Web API client on `fetch`, covering the one call the driver makes: an upsert of up to
 * ten records. Chosen over the official `airtable` package, which has had no release since 2023, has no
 * upsert helper, retries 429 inside the call without bound (hiding the lock-out from our shared limiter)
 * and waits 300 s by default before giving up on a request.
 */

/** Airtable's ceiling on records per create or update request. */
export const AIRTABLE_MAX_RECORDS_PER_REQUEST = 10;

export type AirtableClientOptions = {
  apiKey: string;
  baseId: string;
  /** API origin, as the official client's `endpointUrl`: `https://api.airtable.com` unless overridden. */
  endpointUrl: string;
  timeoutMs: number;
};

export type UpsertResult = {
  records: { id: string; fields: Record<string, unknown> }[];
  createdRecords: string[];
  updatedRecords: string[];
};

/** A non-2xx answer, with Airtable's error type and message kept for the job's failure reason. */
export class AirtableApiError extends Error {
  override name = 'AirtableApiError';
  constructor(
    readonly status: number,
    readonly type: string,
    message: string,
    /** From a `Retry-After` header, when the server sent one. */
    readonly retryAfterMs: number | undefined,
  ) {
    super(`Airtable ${status} ${type}: ${message}`);
  }
}

/**
 * What the driver does about a failed request; the one place this is decided.
 * - `rate-limited`: 429; pause the base, resend the same records, spend no attempt.
 * - `split`: the request was refused for its content (422, or 413 too large): one bad record must not hold
 *   back the others, so the batch is split until the bad one stands alone.
 * - `permanent`: other 4xx (bad token, no such base or table): no retry can fix it.
 * - `retryable`: 5xx, 408, a timeout or a network error: retry on the backoff schedule.
 */
export type FailureAction = 'rate-limited' | 'split' | 'permanent' | 'retryable';

export function classifyAirtableFailure(err: unknown): FailureAction {
  if (!(err instanceof AirtableApiError)) return 'retryable';
  if (err.status === 429) return 'rate-limited';
  if (err.status === 422 || err.status === 413) return 'split';
  if (err.status === 408 || err.status >= 500) return 'retryable';
  return err.status >= 400 ? 'permanent' : 'retryable';
}

export type AirtableClient = {
  upsert(table: string, records: Record<string, unknown>[], fieldsToMergeOn: string[]): Promise<UpsertResult>;
};

export function createAirtableClient({ apiKey, baseId, endpointUrl, timeoutMs }: AirtableClientOptions): AirtableClient {
  const origin = endpointUrl.replace(/\/+$/, '');
  return {
    async upsert(table, records, fieldsToMergeOn) {
      if (records.length === 0 || records.length > AIRTABLE_MAX_RECORDS_PER_REQUEST) {
        throw new RangeError(`an upsert takes 1 to ${AIRTABLE_MAX_RECORDS_PER_REQUEST} records, not ${records.length}`);
      }
      const response = await fetch(`${origin}/v0/${encodeURIComponent(baseId)}/${encodeURIComponent(table)}`, {
        method: 'PATCH',
        headers: { authorization: `Bearer ${apiKey}`, 'content-type': 'application/json' },
        // typecast: Airtable converts strings to the column's type (select options, numbers, checkboxes).
        body: JSON.stringify({ performUpsert: { fieldsToMergeOn }, records: records.map((fields) => ({ fields })), typecast: true }),
        signal: AbortSignal.timeout(timeoutMs),
      });
      const text = await response.text();
      if (!response.ok) throw apiError(response, text);
      return JSON.parse(text) as UpsertResult;
    },
  };
}

function apiError(response: Response, text: string): AirtableApiError {
  let type = 'UNKNOWN';
  let message = text.slice(0, 500);
  try {
    // Airtable answers `{error: {type, message}}`, `{error: "TYPE"}` or, for 429, `{errors: [{error, message}]}`.
    const body = JSON.parse(text) as { error?: string | { type?: string; message?: string }; errors?: { error?: string; message?: string }[] };
    const first = typeof body.error === 'object' ? body.error : body.errors?.[0] ? { type: body.errors[0].error, message: body.errors[0].message } : { type: body.error };
    type = first?.type ?? type;
    message = first?.message ?? message;
  } catch {
    // not JSON (a proxy's error page): keep the text
  }
  return new AirtableApiError(response.status, type, message, parseRetryAfter(response.headers.get('retry-after')));
}

/** `Retry-After` as seconds or as an HTTP date, in ms; undefined when absent or unreadable. */
export function parseRetryAfter(value: string | null, now = Date.now()): number | undefined {
  if (!value) return undefined;
  if (/^\d+(\.\d+)?$/.test(value.trim())) return Math.round(Number(value) * 1000);
  const at = Date.parse(value);
  return Number.isNaN(at) ? undefined : Math.max(0, at - now);
}
