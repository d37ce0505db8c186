/** The one way tests wait: a pause of their own, or a condition polled until it holds. */
export { setTimeout as sleep } from 'node:timers/promises';

import { setTimeout as sleep } from 'node:timers/promises';

/**
 * Polls `check` until it returns true, at most `timeoutMs`; bounded by count and time, a check that never
 * settles included (one still pending at the deadline counts as not met: a Redis command queued on a cluster
 * client that retries forever would otherwise hold the wait, and the test, past every bound it set). On a
 * timeout the error carries `explain()` (what the test saw: counters, the processes' logs), so a failure in
 * CI can be read without running it again.
 */
export async function eventually(
  check: () => Promise<boolean>,
  { timeoutMs = 15_000, everyMs = 100, explain }: { timeoutMs?: number; everyMs?: number; explain?: () => string } = {},
): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  for (let i = 0; i < timeoutMs / everyMs + 1; i++) {
    const unsettled = new AbortController();
    const met = await Promise.race([
      check(),
      sleep(Math.max(0, deadline - Date.now()) + everyMs, false, { signal: unsettled.signal }).catch(() => false),
    ]);
    unsettled.abort();
    if (met) return;
    if (Date.now() > deadline) break;
    await sleep(everyMs);
  }
  const seen = explain ? `\n${explain()}` : '';
  throw new Error(`condition not met within ${timeoutMs} ms${seen}`);
}

/**
 * TEST_TIME_SCALE (default 1) shortens the long waits of the fault tests for a quick local run, keeping
 * their ratios: outages, retry steps, timeouts and backlogs all scale together, so each test still means
 * what it says. `pnpm test` runs them at 1 (the full minute of `crm-down-for-a-minute`); `.ci/run` at 0.5.
 */
const TIME_SCALE = Number(process.env.TEST_TIME_SCALE ?? 1);
if (!(TIME_SCALE > 0 && TIME_SCALE <= 1)) throw new Error('TEST_TIME_SCALE must be in (0, 1]');

/** `value` (a duration in ms, or a count tied to one) at the run's time scale, rounded, never below `min`. */
export function scaled(value: number, min = 1): number {
  return Math.max(min, Math.round(value * TIME_SCALE));
}
