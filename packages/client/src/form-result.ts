import type { ErrorCode } from '@forms/schemas';

/**
 * Why a call did not succeed, as a form needs to know it:
 * - `rejected`: the server refused the input (a 4xx other than 429). Never retried; show `message`, beside
 *   the input named by `field` when there is one (`email`, `workEmail`, `cvFile.data`…).
 * - `unavailable`: 5xx, 429 or network failures until the attempts or the deadline ran out. Nothing was
 *   recorded unless the server says otherwise; the same call may be made again later.
 * - `aborted`: the caller's AbortSignal fired.
 */
export type FormError =
  | { kind: 'rejected'; status: number; code?: ErrorCode; message: string; field?: string }
  | { kind: 'unavailable'; status?: number; code?: ErrorCode; message: string; retryAfterMs?: number }
  | { kind: 'aborted'; message: string };

/** What every client call resolves to; it never throws. */
export type FormResult<T> =
  | { ok: true; status: number; data: T; attempts: number; idempotencyKey?: string }
  | { ok: false; error: FormError; attempts: number; idempotencyKey?: string };
