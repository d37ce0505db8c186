import type { FormError, FormResult } from './form-result.ts';

export type RetryOptions = {
  /** Every attempt and every wait ends within this many ms of the call. Default 20 s. */
  deadlineMs?: number;
  /** Default 6. */
  maxAttempts?: number;
  /** Backoff: the n-th wait is random in [0, min(maxDelayMs, baseDelayMs·2^(n-1))) ("full jitter"). */
  baseDelayMs?: number;
  maxDelayMs?: number;
  signal?: AbortSignal;
  /** Another fetch (tests, a server-side caller); default the global one. */
  fetch?: typeof fetch;
};

export type HttpCall = { url: string; method: string; body?: string; idempotencyKey?: string };

const OFFLINE = 'We could not reach the server; check your connection and try again.';

/**
 * One logical request, retried on 5xx, 429 and network errors until it succeeds, the attempts or the
 * deadline run out, or the caller aborts. A 4xx is the input's fault and is never retried. Every attempt
 * carries the same Idempotency-Key, so a retry after an answer that was lost cannot make a second record
 * once the server honours the key. A Retry-After is a floor: the jittered step is added to it, so clients
 * turned away together do not all come back in the same instant.
 */
export async function sendWithRetry<T>(call: HttpCall, options: RetryOptions = {}): Promise<FormResult<T>> {
  const { deadlineMs = 20_000, maxAttempts = 6, baseDelayMs = 500, maxDelayMs = 8_000, signal } = options;
  const send = options.fetch ?? fetch;
  const deadline = Date.now() + deadlineMs;
  const headers: Record<string, string> = { accept: 'application/json' };
  if (call.body !== undefined) headers['content-type'] = 'application/json';
  if (call.idempotencyKey) headers['idempotency-key'] = call.idempotencyKey;
  let error: FormError = { kind: 'unavailable', message: OFFLINE };
  let attempts = 0;
  const done = (result: { ok: true; status: number; data: T } | { ok: false; error: FormError }): FormResult<T> => ({
    ...result,
    attempts,
    idempotencyKey: call.idempotencyKey,
  });
  const aborted = () => done({ ok: false, error: { kind: 'aborted', message: 'Cancelled.' } });

  while (attempts < maxAttempts) {
    // An already-aborted signal fires no 'abort' event, so look before each attempt.
    if (signal?.aborted) return aborted();
    attempts++;
    let retryAfterMs = 0;
    // One controller per attempt: fires on the caller's abort or at the deadline, whichever is first.
    const stop = new AbortController();
    const abort = () => stop.abort();
    const timer = setTimeout(abort, deadline - Date.now());
    signal?.addEventListener('abort', abort);
    try {
      const res = await send(call.url, { method: call.method, headers, body: call.body, signal: stop.signal });
      const body = await res.json().catch(() => undefined);
      if (res.ok) return done({ ok: true, status: res.status, data: body as T });
      // The structured envelope has the code in `code`; careers-apply's {error, message} has it in `error`.
      const code = body?.code ?? body?.error;
      const message = typeof body?.message === 'string' ? body.message : `The server answered ${res.status}.`;
      if (res.status < 500 && res.status !== 429) {
        return done({ ok: false, error: { kind: 'rejected', status: res.status, code, message, field: body?.field } });
      }
      retryAfterMs = parseRetryAfter(res.headers.get('retry-after'));
      error = { kind: 'unavailable', status: res.status, code, message, retryAfterMs };
    } catch {
      if (signal?.aborted) return aborted();
      error = { kind: 'unavailable', message: OFFLINE };
    } finally {
      clearTimeout(timer);
      signal?.removeEventListener('abort', abort);
    }
    if (attempts >= maxAttempts) break;
    const wait = retryAfterMs + Math.random() * Math.min(maxDelayMs, baseDelayMs * 2 ** (attempts - 1));
    // A wait that would end past the deadline is not started: answer now, while the user is still there.
    if (Date.now() + wait >= deadline) break;
    if (!(await sleep(wait, signal))) return aborted();
  }
  return done({ ok: false, error });
}

/** Retry-After as delta-seconds or an HTTP date, in ms; 0 when absent or unreadable. */
function parseRetryAfter(value: string | null): number {
  if (!value) return 0;
  const ms = /^\d+$/.test(value) ? Number(value) * 1000 : Date.parse(value) - Date.now();
  return Math.max(ms || 0, 0); // an unreadable date is NaN, and NaN || 0 is 0
}

/** Resolves true after `ms`, or false as soon as the signal aborts. */
function sleep(ms: number, signal?: AbortSignal): Promise<boolean> {
  return new Promise((resolve) => {
    if (signal?.aborted) return resolve(false);
    const onAbort = () => {
      clearTimeout(timer);
      resolve(false);
    };
    const timer = setTimeout(() => {
      signal?.removeEventListener('abort', onAbort);
      resolve(true);
    }, ms);
    signal?.addEventListener('abort', onAbort);
  });
}
