import { createHash, timingSafeEqual } from 'node:crypto';

const digest = (value: string) => createHash('sha256').update(value, 'utf8').digest();

/**
 * Compares a presented admin token with the configured one in constant time: both are hashed first, so
 * the comparison is always of two 32-byte digests and neither the token's length nor its first wrong
 * character shows in the timing. `expected` may list two tokens (ADMIN_TOKEN and, during a rotation window,
 * ADMIN_TOKEN_PREVIOUS): each is compared, whichever matches, so the timing does not say which one did.
 */
export function tokenMatches(
  presented: string | undefined,
  expected: string | readonly (string | undefined)[],
): boolean {
  if (presented === undefined) return false;
  const presentedDigest = digest(presented);
  let matched = false;
  for (const token of typeof expected === 'string' ? [expected] : expected) {
    if (token === undefined || token.length === 0) continue;
    if (timingSafeEqual(presentedDigest, digest(token))) matched = true;
  }
  return matched;
}
