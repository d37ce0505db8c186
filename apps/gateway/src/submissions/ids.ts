import { createHmac, randomFillSync } from 'node:crypto';
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

// Crockford's base32, lower-cased, as ULIDs are written: an id derived here has a ULID's shape.
const BASE32 = '0123456789abcdefghjkmnpqrstvwxyz';

/**
 * An id made from what the client sent, the same whichever gateway computes it and whatever Redis has
 * forgotten: `<prefix>_` and 26 base32 characters (130 bits) of HMAC-SHA256 under `secret` over `parts`.
 * Opaque (no one without the secret can test a guessed value against it), not sortable by time.
 */
function derivedId(prefix: 'sub' | 'con', secret: string, parts: readonly string[]): string {
  const digest = createHmac('sha256', secret).update(parts.join('\0')).digest();
  let id = `${prefix}_`;
  let bits = 0;
  let value = 0;
  for (const byte of digest) {
    value = (value << 8) | byte;
    bits += 8;
    while (bits >= 5 && id.length < prefix.length + 27) {
      bits -= 5;
      id += BASE32[(value >> bits) & 31];
    }
    value &= (1 << bits) - 1;
  }
  return id;
}

/** A contact's id: derived from its lower-cased email, so every gateway answers the one the CRM holds. */
export function contactId(secret: string, email: string): string {
  return derivedId('con', secret, ['contact', email]);
}

/**
 * The id of a submission sent with an Idempotency-Key: derived from the key and the body's fingerprint (its
 * endpoint and normalised body), so a retry that reaches a Redis which never saw the key (a failed-over
 * master) still carries the first attempt's id, and the CRM, keyed by it, stores it once.
 */
export function keyedSubmissionId(secret: string, key: string, fingerprint: string): string {
  return derivedId('sub', secret, ['submission', key, fingerprint]);
}
