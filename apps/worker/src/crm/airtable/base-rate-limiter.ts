import { setTimeout as sleep } from 'node:timers/promises';
import { airtableBaseKeys } from '@forms/schemas';
import type { WorkerRedis } from '../../create-worker-redis.ts';

/**
 * Reserves the next send slot of a base: slots are `interval` ms apart, shared through Redis by every
 * process, and never earlier than a pause set after a 429. Redis's clock is the only clock, so hosts with
 * skewed clocks still agree. Returns how long the caller must wait for its slot.
 */
const RESERVE = `
local t = redis.call('TIME')
local now = t[1] * 1000 + math.floor(t[2] / 1000)
local slot = math.max(now, tonumber(redis.call('GET', KEYS[1]) or 0), tonumber(redis.call('GET', KEYS[2]) or 0))
local nextFree = slot + tonumber(ARGV[1])
redis.call('SET', KEYS[1], nextFree, 'PX', nextFree - now + 60000)
return slot - now
`;

/** Pushes the base's pause end to now + ARGV[1] ms (never earlier than one already set); counts a 429 when ARGV[2] is 1. */
const PAUSE = `
local t = redis.call('TIME')
local now = t[1] * 1000 + math.floor(t[2] / 1000)
local untilMs = now + tonumber(ARGV[1])
if untilMs > tonumber(redis.call('GET', KEYS[1]) or 0) then
  redis.call('SET', KEYS[1], untilMs, 'PX', tonumber(ARGV[1]) + 60000)
end
if ARGV[2] == '1' then redis.call('INCR', KEYS[2]) end
return untilMs - now
`;

/**
 * At send time: 0 to go ahead, or the ms the base stays paused. Going ahead also moves the next free slot
 * to at least one interval after now: a sender that woke late (a busy event loop, a slow Redis answer)
 * then pushes the next slots back instead of leaving a short gap after it, which is what a jittery run
 * at exactly the limit would turn into a 429.
 */
const CONFIRM = `
local t = redis.call('TIME')
local now = t[1] * 1000 + math.floor(t[2] / 1000)
local pausedMs = tonumber(redis.call('GET', KEYS[2]) or 0) - now
if pausedMs > 0 then return pausedMs end
local nextFree = now + tonumber(ARGV[1])
if nextFree > tonumber(redis.call('GET', KEYS[1]) or 0) then
  redis.call('SET', KEYS[1], nextFree, 'PX', tonumber(ARGV[1]) + 60000)
end
return 0
`;

export type BaseRateLimiter = {
  /** Resolves when this process may send one request to the base. Rejects with the signal's reason. */
  acquire(signal?: AbortSignal): Promise<void>;
  /** After a 429 (counted) or a base fault (not counted): nobody sends to the base for `ms`. */
  pause(ms: number, reason?: 'rate-limited' | 'base-fault'): Promise<void>;
  /** 429s counted for this base by every process. */
  rateLimitedCount(): Promise<number>;
};

/**
 * One rate limit per Airtable base, shared by every worker process: requests are spaced evenly at
 * `requestsPerSecond` (GCRA with no burst), so no window of a second ever holds more than that many.
 *
 * Why not a library: rate-limiter-flexible's Redis store keeps whole-second windows (it floors durations
 * to seconds), and a fixed window lets 2×N requests through around its edge, which is exactly what earns
 * Airtable's 30-second lock-out. BullMQ's limiter counts jobs per queue, not requests per base. Spacing
 * needs two Redis keys and the three short scripts above.
 */
export function createBaseRateLimiter({
  redis,
  baseId,
  requestsPerSecond,
  keyPrefix = 'airtable',
}: {
  redis: WorkerRedis;
  baseId: string;
  requestsPerSecond: number;
  keyPrefix?: string;
}): BaseRateLimiter {
  // The one naming of a base's keys (ops reads them too); they share a hash slot, so the scripts also run
  // on Redis Cluster.
  const keys = airtableBaseKeys(baseId, keyPrefix);
  // Whole milliseconds, rounded up: the spacing may only err on the slow side.
  const intervalMs = Math.ceil(1000 / requestsPerSecond);
  const run = (script: string, keyList: string[], ...args: (string | number)[]) =>
    redis.eval(script, keyList.length, ...keyList, ...args) as Promise<number>;

  return {
    async acquire(signal) {
      // Bounded: each turn either returns or has waited out a pause somebody set meanwhile.
      for (let turn = 0; turn < 1000; turn++) {
        const waitMs = Number(await run(RESERVE, [keys.nextSlot, keys.pausedUntil], intervalMs));
        if (waitMs > 0) await sleep(waitMs, undefined, { signal });
        // A 429 elsewhere while we waited puts our slot inside the pause: queue again.
        const pausedMs = Number(await run(CONFIRM, [keys.nextSlot, keys.pausedUntil], intervalMs));
        if (pausedMs <= 0) return;
      }
      throw new Error('rate limiter: no slot after 1000 turns');
    },
    async pause(ms, reason = 'rate-limited') {
      const count429 = reason === 'rate-limited' ? 1 : 0;
      await run(PAUSE, [keys.pausedUntil, keys.rateLimited], Math.max(1, Math.round(ms)), count429);
    },
    async rateLimitedCount() {
      return Number((await redis.get(keys.rateLimited)) ?? 0);
    },
  };
}
