import { airtableBaseFaultKey } from './airtable-base-fault.ts';

/**
 * The Redis keys of one Airtable base's shared state, named in one place for the worker (which writes
 * them) and `ops status` (which reads them). The braces keep a base's keys in one cluster slot.
 * `base-rate-limiter.ts` takes its keys from here.
 */
export function airtableBaseKeys(baseId: string, prefix = 'airtable') {
  const base = `${prefix}:{${baseId}}`;
  return {
    /** GCRA: the next free send slot, epoch ms. */
    nextSlot: `${base}:next-slot`,
    /** No request before this epoch ms (set after a 429). */
    pausedUntil: `${base}:paused-until`,
    /** 429s counted since the key was made. */
    rateLimited: `${base}:rate-limited`,
    /** The credential or configuration fault the base is paused for (airtable-base-fault.ts), if any. */
    fault: airtableBaseFaultKey(baseId, prefix),
    /** Requests sent in one 10-second bucket (`bucket` = epoch seconds / 10); kept two minutes. */
    requests: (bucket: number) => `${base}:requests:${bucket}`,
  };
}

/** Width of a request-count bucket; `ops status` sums the last six for "requests in the last minute". */
export const AIRTABLE_REQUEST_BUCKET_MS = 10_000;
