import { isRedisTransition } from '@forms/runtime';
import type { Logger } from 'pino';
import type { GatewayMetrics } from '../gateway-metrics.ts';
import { queueUnavailable } from '../redis-deadline.ts';

/** How long and how much one gateway holds (REDIS_HOLD_MS, REDIS_HOLD_MAX_REQUESTS, REDIS_HOLD_MAX_BYTES). */
export type HoldLimits = Readonly<{ ms: number; maxRequests: number; maxBytes: number }>;

/** What one held call is: its request's key (the submission id, shared by its claim and its add) and size. */
type Held = { key: string; bytes: number };

/** How a hold ended, as `forms_submission_hold_duration_seconds{outcome}` counts it. */
type Outcome = 'stored' | 'gave_up' | 'over_bound' | 'shutdown';

/** Backoff between tries: short, doubling, capped (a promotion is found within a second of happening). */
const FIRST_RETRY_MS = 50;
const MAX_RETRY_MS = 500;

/**
 * Rides a submission through a Redis transition inside its request: when the claim or the add fails for a
 * reason a failover, a restart or a slot move explains (`isRedisTransition`), `ride` tries the same call
 * again, with a short backoff, until it succeeds (answered 200 as ever: the add under the same job id,
 * which BullMQ ignores if an earlier try did land, and under the same durable-ack WAIT) or the hold runs
 * out (REDIS_HOLD_MS, counted from the request's first failure, its claim's and its add's together): then
 * the 503 with Retry-After the request would have had at once. Any other failure is the 503 at once, and so
 * is a transition that cannot end within the hold: Redis unreachable for longer than the hold already, or
 * ever since the gateway started (`outageMs`).
 *
 * Bounded: past REDIS_HOLD_MAX_REQUESTS held at once, or their REDIS_HOLD_MAX_BYTES, a new failure is the
 * 503 at once rather than memory growing. `close` (shutdown) answers every held request with that 503
 * at once, so the server's close does not wait out the hold.
 *
 * Nothing here runs on the ordinary path: callers `await` their call as before and reach `ride` only from
 * their `catch`.
 *
 * Seen by operators: `forms_submissions_held` and `_held_bytes` (gauges), the hold's duration by outcome
 * (a histogram), and one log line when a holding episode starts (held went from none to one) and one when
 * it ends (back to none), with what it held, never one per request.
 */
export function createTransitionHold({
  limits,
  logger,
  metrics,
  signal,
  outageMs,
}: {
  limits: HoldLimits;
  logger?: Logger | undefined;
  metrics?: GatewayMetrics | undefined;
  /** Aborted when the gateway stops: what is held is answered 503 at once. */
  signal?: AbortSignal | undefined;
  /**
   * How long Redis has been unreachable (redis-outage.ts). An outage older than the hold, or one since the
   * gateway started, will not end within it: its requests are answered 503 at once, not after the hold.
   */
  outageMs?: (() => number) | undefined;
}) {
  let held = 0;
  let heldBytes = 0;
  // When each held request first failed, by its key, so its add's hold counts from its claim's failure: a
  // request is answered within one hold, not one per step. Insertion-ordered: swept from the front.
  const since = new Map<string, number>();
  // Wakes every backoff sleep at shutdown.
  const wakers = new Set<() => void>();
  let episode = { startedAt: 0, held: 0, stored: 0, gaveUp: 0, overBound: 0, longestMs: 0 };
  signal?.addEventListener('abort', () => {
    for (const wake of wakers) wake();
  });

  function sweep(now: number) {
    for (const [key, at] of since) {
      if (now - at <= limits.ms) break;
      since.delete(key);
    }
  }

  function end(outcome: Outcome, startedAt: number, { key, bytes }: Held, last: boolean) {
    const ms = performance.now() - startedAt;
    metrics?.holdDuration.observe({ outcome }, ms / 1000);
    held--;
    heldBytes -= bytes;
    metrics?.held.dec();
    metrics?.heldBytes.dec(bytes);
    if (last || outcome !== 'stored') since.delete(key);
    if (outcome === 'stored') episode.stored++;
    else episode.gaveUp++;
    episode.longestMs = Math.max(episode.longestMs, ms);
    if (held === 0) {
      logger?.warn(
        {
          heldRequests: episode.held,
          stored: episode.stored,
          answered503: episode.gaveUp,
          refusedOverBound: episode.overBound,
          longestHoldMs: Math.round(episode.longestMs),
          episodeMs: Math.round(performance.now() - episode.startedAt),
        },
        'redis transition: no submission held any more',
      );
    }
  }

  return {
    /**
     * Called from the `catch` of a claim or an add that failed with `first`: tries `again` (given the ms it
     * may take) until it succeeds or the hold runs out. `last` marks the request's final Redis step (its
     * add), after which its key is forgotten. Rejects with the 503 when the failure is not a transition,
     * the bound is reached, the hold runs out or the gateway stops.
     */
    async ride<T>(first: unknown, again: (ms: number) => Promise<T>, call: Held & { last: boolean }): Promise<T> {
      if (limits.ms <= 0 || signal?.aborted || !isRedisTransition(first) || (outageMs?.() ?? 0) > limits.ms)
        throw unavailable(first);
      const now = performance.now();
      if (held >= limits.maxRequests || heldBytes + call.bytes > limits.maxBytes) {
        metrics?.holdDuration.observe({ outcome: 'over_bound' }, 0);
        episode.overBound++;
        throw unavailable(first);
      }
      sweep(now);
      const firstFailedAt = since.get(call.key) ?? now;
      since.set(call.key, firstFailedAt);
      const deadline = firstFailedAt + limits.ms;
      if (held === 0) {
        episode = { startedAt: now, held: 0, stored: 0, gaveUp: 0, overBound: 0, longestMs: 0 };
        logger?.warn(
          { cause: describe(first), holdMs: limits.ms },
          'redis transition: holding submissions until it ends or the hold runs out',
        );
      }
      held++;
      heldBytes += call.bytes;
      episode.held++;
      metrics?.held.inc();
      metrics?.heldBytes.inc(call.bytes);
      let last = first;
      for (let tries = 0; ; tries++) {
        const wait = Math.min(FIRST_RETRY_MS * 2 ** tries, MAX_RETRY_MS, deadline - performance.now());
        if (wait > 0) await pause(wait);
        const left = deadline - performance.now();
        if (signal?.aborted || left <= 0) {
          end(signal?.aborted ? 'shutdown' : 'gave_up', now, call, call.last);
          throw unavailable(last);
        }
        try {
          // The try is raced against the deadline: a request is answered within the hold, whatever Redis does.
          const value = await raceDeadline(again(left), left);
          end('stored', now, call, call.last);
          return value;
        } catch (err) {
          if ((err as { code?: unknown }).code === 'HOLD_ENDED') continue; // the loop's check answers
          last = err;
          if (!isRedisTransition(err)) {
            end('gave_up', now, call, true);
            throw unavailable(err);
          }
        }
      }
    },
  };

  /**
   * `work`, or a HOLD_ENDED rejection once `ms` have passed or the gateway stops: a request is answered
   * within the hold whatever Redis does. A late rejection of `work` is handled here.
   */
  function raceDeadline<T>(work: Promise<T>, ms: number): Promise<T> {
    return new Promise<T>((resolve, reject) => {
      const stop = () => {
        clearTimeout(timer);
        wakers.delete(stop);
        reject(Object.assign(new Error('the hold ended before Redis answered'), { code: 'HOLD_ENDED' }));
      };
      const timer = setTimeout(stop, ms);
      wakers.add(stop);
      const settle = () => {
        clearTimeout(timer);
        wakers.delete(stop);
      };
      work.then(
        (value) => {
          settle();
          resolve(value);
        },
        (err) => {
          settle();
          reject(err);
        },
      );
    });
  }

  function pause(ms: number): Promise<void> {
    return new Promise<void>((resolve) => {
      const wake = () => {
        clearTimeout(timer);
        wakers.delete(wake);
        resolve();
      };
      const timer = setTimeout(wake, ms);
      wakers.add(wake);
    });
  }
}

export type TransitionHold = ReturnType<typeof createTransitionHold>;

/** The 503 for `err`: itself when it is one already (redis-deadline.ts made it), else one caused by it. */
function unavailable(err: unknown): unknown {
  return (err as { code?: unknown } | undefined)?.code === 'QUEUE_UNAVAILABLE' ? err : queueUnavailable(err);
}

/** The failure's class for the episode's log line: its code or the first words of its message (no data). */
function describe(err: unknown): string {
  let e = err as { message?: unknown; code?: unknown; cause?: unknown } | undefined;
  while (e?.cause && (e as { code?: unknown }).code === 'QUEUE_UNAVAILABLE') e = e.cause as typeof e;
  const code = typeof e?.code === 'string' ? `${e.code}: ` : '';
  return `${code}${String(e?.message ?? e).slice(0, 120)}`;
}
