import { setTimeout as sleep } from 'node:timers/promises';
import { airtableBaseKeys } from '@forms/schemas';
import type { WorkerRedis } from '../../create-worker-redis.ts';

/** Milliseconds the send-slot key outlives its slot, so an idle base leaves nothing behind for long. */
const SLOT_TTL_MS = 60_000;

/**
 * TAKE (KEYS: next free slot, paused until; ARGV: interval ms, settle, pause ms): 0 when a request may leave now,
 * the next free slot then moving to now + interval; otherwise the ms until the base is free (its next slot,
 * or the end of a pause). With settle = 1 (this process has just connected or reconnected: a Redis
 * restarted from its append-only file may have lost the last second's slots) the last send is taken to be
 * now, so the first request after an outage is spaced like any other. A pause ms above 0 (one this process
 * knows is still running) is put back first when Redis has lost it. Redis's clock is the only clock, so
 * hosts with skewed clocks still agree.
 */
const TAKE = `
local t = redis.call('TIME')
local now = t[1] * 1000 + math.floor(t[2] / 1000)
local interval = tonumber(ARGV[1])
local nextSlot = tonumber(redis.call('GET', KEYS[1]) or 0)
local known = tonumber(ARGV[3])
if known > 0 and now + known > tonumber(redis.call('GET', KEYS[2]) or 0) then
  redis.call('SET', KEYS[2], now + known, 'PX', known + 60000)
end
if ARGV[2] == '1' and nextSlot < now + interval then
  nextSlot = now + interval
  redis.call('SET', KEYS[1], nextSlot, 'PX', interval + ${SLOT_TTL_MS})
end
local free = math.max(nextSlot, tonumber(redis.call('GET', KEYS[2]) or 0))
if free > now then return free - now end
redis.call('SET', KEYS[1], now + interval, 'PX', interval + ${SLOT_TTL_MS})
return 0
`;

/** FREE_IN (same KEYS): the ms until the base is free, 0 if it is now; changes nothing. */
const FREE_IN = `
local t = redis.call('TIME')
local now = t[1] * 1000 + math.floor(t[2] / 1000)
local free = math.max(tonumber(redis.call('GET', KEYS[1]) or 0), tonumber(redis.call('GET', KEYS[2]) or 0))
return math.max(0, free - now)
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

/** A request may leave now, or not before `waitMs`. */
export type Grant = { granted: true } | { granted: false; waitMs: number };

export type BaseRateLimiter = {
  /** How long until the base is free to take a request (0: now). Takes nothing: for choosing when to fill a request. */
  freeInMs(): Promise<number>;
  /**
   * Takes the base's next send slot if it is free now. A grant is the send: the caller sends at once, with
   * nothing awaited between. A grant whose answer came back later than the spacing can absorb (Redis
   * was slow, partitioned, or restarted with the command queued) is spent and not given: the caller asks
   * again, after one more interval.
   */
  take(): Promise<Grant>;
  /** Takes a slot, waiting as long as it takes (bounded in turns): for a lone request that holds no leases. Send at once. */
  acquire(signal?: AbortSignal): Promise<void>;
  /** After a 429 (counted) or a base fault (not counted): nobody sends to the base for `ms`. */
  pause(ms: number, reason?: 'rate-limited' | 'base-fault'): Promise<void>;
  /** 429s counted for this base by every process. */
  rateLimitedCount(): Promise<number>;
  /** Grants spent unused because their answer came too late, in this process. */
  staleGrants(): number;
};

/**
 * The spacing of one base's requests, from Airtable's published limit (`limit` a second) and the rate we
 * send at (`requestsPerSecond`, under it). `slackMs` is how far `limit` intervals exceed one second: the
 * time by which requests may leave late and still never put `limit + 1` in any second at Airtable. Half
 * of it bounds how late a grant's answer may come (`maxGrantLagMs`); the other half is left to the path
 * to Airtable (event-loop delay before the write, network jitter). At 5/s less 10 %: 223 ms apart, 115 ms
 * of slack, grants at most 57 ms late.
 */
export function sendSpacing({ limit, requestsPerSecond }: { limit: number; requestsPerSecond: number }) {
  // Whole milliseconds, rounded up: the spacing may only err on the slow side.
  const intervalMs = Math.ceil(1000 / requestsPerSecond);
  const slackMs = Math.max(0, Math.ceil(limit) * intervalMs - 1000);
  // A floor, so a margin set to nothing still lets grants through (and meets the 429s it asked for).
  return { intervalMs, slackMs, maxGrantLagMs: Math.max(10, Math.floor(slackMs / 2)) };
}

/**
 * One rate limit per Airtable base, shared by every worker process: requests are spaced evenly at
 * `requestsPerSecond` (GCRA with no burst), so no window of a second ever holds more than `limit`. A slot
 * is taken only when a request is ready to leave, and a grant that arrives late is not used (see
 * `take`), so a Redis outage or partition that holds up the callers' commands cannot release them all at
 * once when it ends.
 *
 * Why not a library: rate-limiter-flexible's Redis store keeps whole-second windows (it floors durations
 * to seconds), and a fixed window lets 2×N requests through around its edge, which is exactly what earns
 * Airtable's 30-second lock-out. BullMQ's limiter counts jobs per queue, not requests per base. Spacing
 * needs two Redis keys and the three short scripts above.
 */
export function createBaseRateLimiter({
  redis,
  baseId,
  limit,
  requestsPerSecond,
  keyPrefix = 'airtable',
}: {
  redis: WorkerRedis;
  baseId: string;
  /** Airtable's published limit, requests a second per base. */
  limit: number;
  /** The rate requests are spaced at, under `limit`. */
  requestsPerSecond: number;
  keyPrefix?: string;
}): BaseRateLimiter {
  // The one naming of a base's keys (ops reads them too); they share a hash slot, so the scripts also run
  // on Redis Cluster.
  const keys = airtableBaseKeys(baseId, keyPrefix);
  const { intervalMs, maxGrantLagMs } = sendSpacing({ limit, requestsPerSecond });
  const run = (script: string, keyList: string[], ...args: (string | number)[]) =>
    redis.eval(script, keyList.length, ...keyList, ...args) as Promise<number>;
  // The end of the latest pause this process set or was told of (a wait longer than one interval can only
  // be a pause), on its own monotonic clock: Redis restarted from a snapshot, or a replica promoted before
  // the pause reached it, comes back without the pause, and Airtable's lock-out runs on regardless.
  let pausedUntil = 0;
  const learn = (waitMs: number) => {
    if (waitMs > intervalMs) pausedUntil = Math.max(pausedUntil, performance.now() + waitMs);
  };
  const pauseScript = (ms: number, count429: 0 | 1) =>
    run(PAUSE, [keys.pausedUntil, keys.rateLimited], Math.max(1, Math.round(ms)), count429);
  // Every (re)connection may follow a restart that lost the last slots: the next take settles first. A pause
  // still running here is written back as soon as the connection is ready, for the other processes, and
  // every take carries it too, so this process is never granted a request into the lock-out.
  let settle = true;
  redis.on('ready', () => {
    settle = true;
    const left = pausedUntil - performance.now();
    if (left > 0) pauseScript(left, 0).catch(() => {});
  });
  let stale = 0;

  async function take(): Promise<Grant> {
    const asked = performance.now();
    const settling = settle;
    const known = Math.max(0, Math.round(pausedUntil - asked));
    const waitMs = Number(await run(TAKE, [keys.nextSlot, keys.pausedUntil], intervalMs, settling ? 1 : 0, known));
    if (settling) settle = false;
    learn(waitMs);
    if (waitMs > 0) return { granted: false, waitMs };
    if (performance.now() - asked > maxGrantLagMs) {
      stale++;
      return { granted: false, waitMs: 0 };
    }
    return { granted: true };
  }

  return {
    async freeInMs() {
      const waitMs = Number(await run(FREE_IN, [keys.nextSlot, keys.pausedUntil]));
      learn(waitMs);
      return waitMs;
    },
    take,
    async acquire(signal) {
      for (let turn = 0; turn < 10_000; turn++) {
        const grant = await take();
        if (grant.granted) return;
        await sleep(grant.waitMs, undefined, { signal });
      }
      throw new Error('rate limiter: no slot after 10,000 turns');
    },
    async pause(ms, reason = 'rate-limited') {
      pausedUntil = Math.max(pausedUntil, performance.now() + ms);
      await pauseScript(ms, reason === 'rate-limited' ? 1 : 0);
    },
    async rateLimitedCount() {
      return Number((await redis.get(keys.rateLimited)) ?? 0);
    },
    staleGrants: () => stale,
  };
}
