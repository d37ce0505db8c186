/**
 * A small Airtable Web API client on `fetch`, covering the one call the driver makes: an upsert of up to
 * ten records. Chosen over the official `airtable` package, which has had no release since 2023, has no
 * upsert helper, retries 429 inside the call without bound (hiding the lock-out from our shared limiter)
 * and waits 300 s by default before giving up on a request.
 */

import { type TraceLink, withSpan } from '@forms/observability';
import { fetchWithCause } from '../../fetch-with-cause.ts';
import { redactValues } from '../redact-values.ts';

/** Airtable's ceiling on records per create or update request. */
export const AIRTABLE_MAX_RECORDS_PER_REQUEST = 10;

type AirtableClientOptions = {
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

/**
 * A non-2xx answer, with Airtable's error type and message kept for the job's failure reason. The message
 * never holds a value of the records sent (`apiError` redacts them): it is logged and kept on the job.
 */
export class AirtableApiError extends Error {
  override name = 'AirtableApiError';
  readonly status: number;
  readonly type: string;
  /** From a `Retry-After` header, when the server sent one. */
  readonly retryAfterMs: number | undefined;
  constructor(status: number, type: string, message: string, retryAfterMs: number | undefined) {
    super(`Airtable ${status} ${type}: ${message}`);
    this.status = status;
    this.type = type;
    this.retryAfterMs = retryAfterMs;
  }
}

/**
 * What the driver does about a failed request; the one place this is decided.
 * - `rate-limited`: 429; pause the base, resend the same records, spend no attempt.
 * - `split`: the request was refused for its content (422, or 413 too large): one bad record must not hold
 *   back the others, so the batch is split until the bad one stands alone.
 * - `base-fault`: 401, 403 or 404: the token, the base or a table is wrong, for every record alike (seen: a
 *   rotated token sent a whole launch to the failed set on first attempts). Pause the base, keep the jobs
 *   without spending attempts, say which setting to fix, and probe until a request goes through.
 * - `permanent`: other 4xx: no retry can fix it.
 * - `retryable`: 5xx, 408, a timeout or a network error: retry on the backoff schedule.
 */
type FailureAction = 'rate-limited' | 'split' | 'base-fault' | 'permanent' | 'retryable';

export function classifyAirtableFailure(err: unknown): FailureAction {
  if (!(err instanceof AirtableApiError)) return 'retryable';
  if (err.status === 429) return 'rate-limited';
  if (err.status === 401 || err.status === 403 || err.status === 404) return 'base-fault';
  if (err.status === 422 || err.status === 413) return 'split';
  if (err.status === 408 || err.status >= 500) return 'retryable';
  return err.status >= 400 ? 'permanent' : 'retryable';
}

/**
 * Whether a failed request could still be applied later: true when no answer came (a timeout, a connection
 * dropped after the request was written) or a proxy answered that it gave up waiting (504, 408). An answer
 * from Airtable, or a connection that never opened (refused, no such host, no route), ends the request.
 */
export function mayStillLand(err: unknown): boolean {
  if (err instanceof AirtableApiError) return err.status === 504 || err.status === 408;
  const code = (err as { cause?: { code?: string } } | undefined)?.cause?.code;
  return !(code && NOTHING_SENT.has(code));
}

/** Failures to connect at all (refused, no such host, no route): the request never left this process. */
const NOTHING_SENT = new Set([
  'ECONNREFUSED',
  'ENOTFOUND',
  'EAI_AGAIN',
  'EHOSTUNREACH',
  'ENETUNREACH',
  'UND_ERR_CONNECT_TIMEOUT',
]);

export type AirtableClient = {
  /** `submissions`: the span of each record's submission (tracing on), for the request's span to link to. */
  upsert(
    table: string,
    records: Record<string, unknown>[],
    fieldsToMergeOn: string[],
    submissions?: (TraceLink | undefined)[],
  ): Promise<UpsertResult>;
};

export function createAirtableClient({
  apiKey,
  baseId,
  endpointUrl,
  timeoutMs,
}: AirtableClientOptions): AirtableClient {
  const origin = endpointUrl.replace(/\/+$/, '');
  const client: AirtableClient = {
    async upsert(table, records, fieldsToMergeOn) {
      if (records.length === 0 || records.length > AIRTABLE_MAX_RECORDS_PER_REQUEST) {
        throw new RangeError(`an upsert takes 1 to ${AIRTABLE_MAX_RECORDS_PER_REQUEST} records, not ${records.length}`);
      }
      const response = await fetchWithCause(`${origin}/v0/${encodeURIComponent(baseId)}/${encodeURIComponent(table)}`, {
        method: 'PATCH',
        headers: { authorization: `Bearer ${apiKey}`, 'content-type': 'application/json' },
        // typecast: Airtable converts strings to the column's type (select options, numbers, checkboxes).
        body: JSON.stringify({
          performUpsert: { fieldsToMergeOn },
          records: records.map((fields) => ({ fields })),
          typecast: true,
        }),
        signal: AbortSignal.timeout(timeoutMs),
      });
      const text = await response.text();
      if (!response.ok) throw apiError(response, text, records);
      return JSON.parse(text) as UpsertResult;
    },
  };
  // One request writes up to ten submissions: its span sits in the first one's trace and links to each
  // (the first included), so every submission's trace leads to the request that wrote it.
  return {
    upsert: (table, records, fieldsToMergeOn, submissions = []) =>
      withSpan(
        'airtable.upsert',
        { kind: 'client', parent: submissions[0], links: submissions, attributes: { 'airtable.table': table } },
        async (span) => {
          span.setAttributes({ 'airtable.records': records.length });
          try {
            const result = await client.upsert(table, records, fieldsToMergeOn);
            span.setAttributes({ 'http.response.status_code': 200 });
            return result;
          } catch (err) {
            if (err instanceof AirtableApiError) span.setAttributes({ 'http.response.status_code': err.status });
            throw err;
          }
        },
      ),
  };
}

/** Airtable's answer as an error. Its 422 messages quote refused values, so the records' values are redacted. */
function apiError(response: Response, text: string, records: Record<string, unknown>[]): AirtableApiError {
  let type = 'UNKNOWN';
  let message = text.slice(0, 500);
  try {
    // Airtable answers `{error: {type, message}}`, `{error: "TYPE"}` or, for 429, `{errors: [{error, message}]}`.
    const body = JSON.parse(text) as {
      error?: string | { type?: string; message?: string };
      errors?: { error?: string; message?: string }[];
    };
    const first =
      typeof body.error === 'object'
        ? body.error
        : body.errors?.[0]
          ? { type: body.errors[0].error, message: body.errors[0].message }
          : { type: body.error };
    type = first?.type ?? type;
    message = first?.message ?? message;
  } catch {
    // not JSON (a proxy's error page): keep the text
  }
  return new AirtableApiError(
    response.status,
    redactValues(type, records),
    redactValues(message, records),
    parseRetryAfter(response.headers.get('retry-after')),
  );
}

/** `Retry-After` as seconds or as an HTTP date, in ms; undefined when absent or unreadable. */
export function parseRetryAfter(value: string | null, now = Date.now()): number | undefined {
  if (!value) return undefined;
  if (/^\d+(\.\d+)?$/.test(value.trim())) return Math.round(Number(value) * 1000);
  const at = Date.parse(value);
  return Number.isNaN(at) ? undefined : Math.max(0, at - now);
}
