import type { Cluster, Redis } from 'ioredis';
import { ApiError } from '../errors.ts';
import { withRedisDeadline } from '../redis-deadline.ts';
import type { AbuseCounters } from './abuse-counters.ts';
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
/** What the limit knows of one client: its hashed key and the window's size. */
export type ClientLimit = NonNullable<ReturnType<RateLimit['forClient']>>;

/** The 429 of the per-client limit, counted; `Retry-After` in whole seconds, at least 1. */
export function rateLimited(counters: AbuseCounters, retryAfterMs: number): ApiError {
  counters.rateLimited++;
  return new ApiError('RATE_LIMITED', {
    headers: { 'Retry-After': String(Math.max(1, Math.ceil(retryAfterMs / 1000))) },
  });
}

/**
 * For a request about to be refused for its body: whether its client's window in Redis is already full (the
 * next claim would be refused), and then for how long. Read only then, one GET and PTTL on the error path,
 * so a bad body from a client over the limit is a 429 on every gateway, not only on one that refused it
 * before. Undefined when the window has room, or when Redis cannot say in time (the body's 4xx stands).
 */
export async function fullWindowFor(
  redis: Redis | Cluster,
  key: string,
  requests: number,
  timeoutMs: number,
): Promise<number | undefined> {
  try {
    const replies = await withRedisDeadline(redis.multi().get(key).pttl(key).exec(), timeoutMs);
    const used = Number(replies?.[0]?.[1] ?? 0);
    const left = Number(replies?.[1]?.[1] ?? -2);
    return used >= requests && left > 0 ? left : undefined;
  } catch {
    return undefined;
  }
}
