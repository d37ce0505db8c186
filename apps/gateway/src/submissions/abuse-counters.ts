/**
 * Counts of submissions the abuse controls turned away, per gateway process since start. Plain numbers
 * on purpose: the metrics endpoint reads them (as counters) without this wing depending on it.
 */
export type AbuseCounters = {
  /** Answered like a success and dropped before the queue because the honeypot field was filled. */
  honeypotDropped: number;
  /** Answered 429 RATE_LIMITED. */
  rateLimited: number;
};

export function createAbuseCounters(): AbuseCounters {
  return { honeypotDropped: 0, rateLimited: 0 };
}
