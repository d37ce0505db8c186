/**
 * What the spam layers decided, per gateway process since start: plain numbers the metrics endpoint reads
 * at scrape time (gateway-metrics.ts), so this room depends on no metrics library.
 */
export type SpamCounters = {
  /** Submissions judged, by verdict (`spam` held in the quarantine, `ham` queued) and sender (`person`, `agent`). */
  verdicts: Map<string, number>;
  /** Every reason of every held submission, keyed `layer code` (a held submission counts once per reason). */
  reasons: Map<string, number>;
  /** Calls to a provider (challenge, akismet) that could not answer in time: the layer abstained. */
  unavailable: Map<string, number>;
};

export function createSpamCounters(): SpamCounters {
  return { verdicts: new Map(), reasons: new Map(), unavailable: new Map() };
}

export function countIn(map: Map<string, number>, key: string): void {
  map.set(key, (map.get(key) ?? 0) + 1);
}
