import { ApiError } from './errors.ts';

/** Seconds a client is told to wait when Redis cannot take a submission. */
export const QUEUE_RETRY_AFTER_SECONDS = 5;

/**
 * Bounds one call to Redis (a queue add, a contact-index claim, a ping): rejects with QUEUE_UNAVAILABLE
 * (503, Retry-After) when `work` has not settled within `ms`, or failed.
 */
export async function withRedisDeadline<T>(work: Promise<T>, ms: number): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  const deadline = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new Error(`Redis did not answer within ${ms} ms`)), ms);
  });
  try {
    return await Promise.race([work, deadline]);
  } catch (cause) {
    work.catch(() => {}); // a late rejection must not become an unhandled one
    throw queueUnavailable(cause);
  } finally {
    clearTimeout(timer);
  }
}

/** The 503 every Redis failure on the request path becomes, with `Retry-After`. */
export function queueUnavailable(cause: unknown): ApiError {
  return Object.assign(
    new ApiError('QUEUE_UNAVAILABLE', { headers: { 'Retry-After': String(QUEUE_RETRY_AFTER_SECONDS) } }),
    { cause },
  );
}
