import { createHash, timingSafeEqual } from 'node:crypto';

const digest = (value: string) => createHash('sha256').update(value, 'utf8').digest();

/**
 * Compares a presented admin token with the configured one in constant time: both are hashed first, so
 * the comparison is always of two 32-byte digests and neither the token's length nor its first wrong
 * character shows in the timing.
 */
export function tokenMatches(presented: string | undefined, expected: string): boolean {
  if (presented === undefined || expected.length === 0) return false;
  return timingSafeEqual(digest(presented), digest(expected));
}
