/**
 * Counts of submissions the abuse controls turned away, per gateway process since start. Plain numbers
 * on purpose: the metrics endpoint reads them (as counters) without this wing depending on it.
 */
export type AbuseCounters = {
  /** Answered like a success and kept in the quarantine instead of the queue: the honeypot field was filled. */
  honeypotQuarantined: number;
  /** Answered 429 RATE_LIMITED. */
  rateLimited: number;
};

export function createAbuseCounters(): AbuseCounters {
  return { honeypotQuarantined: 0, rateLimited: 0 };
}
