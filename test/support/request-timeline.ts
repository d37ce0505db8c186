/** Times (ms) at which the local Airtable server saw requests, read as Airtable's limit would. */

/** The most requests inside any window of `windowMs` (a sliding window, as the base's limit counts). */
export function mostInAnyWindow(times: number[], windowMs = 1_000): number {
  const sorted = [...times].sort((a, b) => a - b);
  let most = 0;
  let first = 0;
  for (let last = 0; last < sorted.length; last++) {
    while (sorted[last]! - sorted[first]! >= windowMs) first++;
    most = Math.max(most, last - first + 1);
  }
  return most;
}

/**
 * The longest stretch with no request between `from` and `to`, leaving out the stretches in `excluded`
 * (outages when no request can be granted): an outage's start and end count as requests, so the time the
 * driver takes to start again after one is measured.
 */
export function longestGap(
  times: number[],
  { from, to, excluded = [] }: { from: number; to: number; excluded?: { start: number; end: number }[] },
): { ms: number; at: number } {
  const marks = [
    from,
    ...times.filter((t) => t >= from && t <= to),
    ...excluded.flatMap((e) => [e.start, e.end]),
    to,
  ].sort((a, b) => a - b);
  let longest = { ms: 0, at: from };
  for (let i = 1; i < marks.length; i++) {
    const [start, end] = [marks[i - 1]!, marks[i]!];
    if (excluded.some((e) => start < e.end && end > e.start)) continue;
    if (end - start > longest.ms) longest = { ms: end - start, at: start };
  }
  return longest;
}
