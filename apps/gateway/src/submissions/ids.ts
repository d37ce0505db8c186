// The derived ids (a contact's from its email, a keyed submission's) live in @forms/schemas, so `ops show
// <email>` finds a person by the very id the gateway gave them.
export { contactId, hmacSha256Hex, keyedSubmissionId } from '@forms/schemas';

import { randomFillSync } from 'node:crypto';
import { monotonicFactory } from 'ulid';

// ulid's own random source asks the OS for one byte per character (16 calls per id), which showed up at
// about 3% of the gateway's CPU under load; the same bytes drawn from a 4 KiB pool refilled at once.
const pool = new Uint8Array(4096);
let next = pool.length;
function pooledRandom(): number {
  if (next === pool.length) {
    randomFillSync(pool);
    next = 0;
  }
  return pool[next++]! / 256;
}

const ulid = monotonicFactory(pooledRandom);

/** Sortable unique ids with a short prefix: `sub_` for a submission sent without an Idempotency-Key. */
export function newId(prefix: 'sub' | 'con'): string {
  return `${prefix}_${ulid().toLowerCase()}`;
}
