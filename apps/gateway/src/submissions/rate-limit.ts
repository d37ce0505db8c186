import { hash } from './submission-keys.ts';

const MAX_REMEMBERED = 10_000;
/**
 * The longest address whose hash is remembered: an IPv6 address with a zone is at most about 60 characters.
 * A longer "address" (only a misconfigured hop count lets a client choose one) is hashed every time and
 * never kept, so what the limiter holds does not grow with what a client sends: 5,000 distinct 12 KB
 * X-Forwarded-For values used to grow the gateway by 66 MB.
 */
const MAX_REMEMBERED_ADDRESS = 64;

/**
 * The per-client limit on submissions: `requests` per `windowSeconds` per client address (`ctx.ip`, which
 * honours X-Forwarded-For only with TRUST_PROXY, and then only the trusted hops at its right end), counted in Redis so every gateway shares it. The count
 * is taken inside the submission's one claim script (`claimSubmission`), a fixed window as
 * rate-limiter-flexible's RateLimiterRedis keeps it: calling that library as well cost one more Redis
 * round trip per request, measured at 60–80 µs of CPU per submission (about 16% of the gateway's).
 *
 * A client over the limit is refused from memory until its window ends, sparing Redis during a flood;
 * that memory holds at most 10,000 clients and forgets them all when full (they are then counted in Redis
 * again, never let through unchecked).
 */
export function createRateLimit({ requests, windowSeconds }: { requests: number; windowSeconds: number }) {
  const refusedUntil = new Map<string, number>();
  // Hashing the address was ~1.5% of the gateway's CPU under load; the same clients come back, so the
  // hashes are remembered (at most 10,000, all forgotten when full).
  const hashes = new Map<string, string>();
  function clientKey(ip: string): string {
    if (ip.length > MAX_REMEMBERED_ADDRESS) return hash(ip);
    let key = hashes.get(ip);
    if (key === undefined) {
      if (hashes.size >= MAX_REMEMBERED) hashes.clear();
      key = hash(ip);
      hashes.set(ip, key);
    }
    return key;
  }
  return {
    /** What the claim script needs for this client, or undefined when the limit is off. */
    forClient(ip: string) {
      return requests > 0 ? { client: clientKey(ip), requests, windowMs: windowSeconds * 1000 } : undefined;
    },
    /** Milliseconds this client must still wait, if Redis already refused it in this window. */
    waitFor(client: string): number | undefined {
      const until = refusedUntil.get(client);
      if (until === undefined) return undefined;
      const left = until - Date.now();
      if (left > 0) return left;
      refusedUntil.delete(client);
      return undefined;
    },
    refused(client: string, retryAfterMs: number) {
      if (refusedUntil.size >= MAX_REMEMBERED) refusedUntil.clear();
      refusedUntil.set(client, Date.now() + retryAfterMs);
    },
  };
}

export type RateLimit = ReturnType<typeof createRateLimit>;
