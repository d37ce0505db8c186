import { ApiError } from './errors.ts';

/** Seconds a client is told to wait when Redis cannot take a submission. */
const QUEUE_RETRY_AFTER_SECONDS = 5;

/**
 * Bounds one call to Redis (a queue add, a contact-index claim, a ping): rejects with QUEUE_UNAVAILABLE
 * (503, Retry-After) when `work` has not settled within `ms`, or failed. One timer and one promise per call
 * (it runs twice per submission); a late rejection of `work` is handled here, never an unhandled one.
 */
export function withRedisDeadline<T>(work: Promise<T>, ms: number): Promise<T> {
  return new Promise<T>((resolve, reject) => {
    const timer = setTimeout(
      () =>
        reject(
          queueUnavailable(
            Object.assign(new Error(`Redis did not answer within ${ms} ms`), { code: 'REDIS_DEADLINE' }),
          ),
        ),
      ms,
    );
    work.then(
      (value) => {
        clearTimeout(timer);
        resolve(value);
      },
      (cause) => {
        clearTimeout(timer);
        reject(queueUnavailable(cause));
      },
    );
  });
}

/** The 503 every Redis failure on the request path becomes, with `Retry-After`. */
export function queueUnavailable(cause: unknown): ApiError {
  return Object.assign(
    new ApiError('QUEUE_UNAVAILABLE', { headers: { 'Retry-After': String(QUEUE_RETRY_AFTER_SECONDS) } }),
    { cause },
  );
}
