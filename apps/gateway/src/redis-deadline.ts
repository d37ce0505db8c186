import { withDeadline } from '@forms/quarantine';
import { ApiError } from './errors.ts';

/** Seconds a client is told to wait when Redis cannot take a submission. */
const QUEUE_RETRY_AFTER_SECONDS = 5;

/**
 * Bounds one call to Redis (a queue add, a contact-index claim, a ping): rejects with QUEUE_UNAVAILABLE
 * (503, Retry-After) when `work` has not settled within `ms`, or failed (withDeadline, shared with the hold).
 */
export function withRedisDeadline<T>(work: Promise<T>, ms: number): Promise<T> {
  return withDeadline(work, ms, queueUnavailable);
}

/** The 503 every Redis failure on the request path becomes, with `Retry-After`. */
export function queueUnavailable(cause: unknown): ApiError {
  return Object.assign(
    new ApiError('QUEUE_UNAVAILABLE', { headers: { 'Retry-After': String(QUEUE_RETRY_AFTER_SECONDS) } }),
    { cause },
  );
}
