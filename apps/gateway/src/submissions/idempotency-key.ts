import { ApiError } from '../errors.ts';
import { hash } from './submission-keys.ts';

const PRINTABLE = /^[\x20-\x7e]{1,255}$/;

/**
 * The request's Idempotency-Key, checked: absent is fine (undefined); present, it must be 1–255 printable
 * ASCII characters, else 400 INVALID_IDEMPOTENCY_KEY before anything is claimed.
 */
export function readIdempotencyKey(header: string | string[] | undefined): string | undefined {
  if (header === undefined) return undefined;
  if (typeof header !== 'string' || !PRINTABLE.test(header)) throw new ApiError('INVALID_IDEMPOTENCY_KEY');
  return header;
}

/**
 * What "the same body" means for an Idempotency-Key: the endpoint and the body as validated and
 * normalised (trimmed, e-mail lower-cased, unknown fields dropped), so a retry that differs only in
 * whitespace, key order or an ignored field is still the same submission. 128 bits of SHA-256.
 */
export function bodyFingerprint(path: string, data: unknown): string {
  return hash(`${path}\n${JSON.stringify(data)}`);
}
