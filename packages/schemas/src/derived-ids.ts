import { hash } from 'node:crypto';

// Crockford's base32, lower-cased, as ULIDs are written: an id derived here has a ULID's shape.
const BASE32 = '0123456789abcdefghjkmnpqrstvwxyz';
const SHA256_BLOCK_BYTES = 64;

/** A secret's HMAC pads (RFC 2104), made once per secret: `inner` ⊕ 0x36; `outer` ⊕ 0x5c, with room for the inner digest. */
type Pads = { inner: Buffer; outer: Buffer };
const padsBySecret = new Map<string, Pads>();
function padsFor(secret: string): Pads {
  let pads = padsBySecret.get(secret);
  if (!pads) {
    let key = Buffer.from(secret, 'utf8');
    if (key.length > SHA256_BLOCK_BYTES) key = hash('sha256', key, 'buffer');
    const inner = Buffer.alloc(SHA256_BLOCK_BYTES, 0x36);
    const outer = Buffer.alloc(SHA256_BLOCK_BYTES + 32, 0x5c);
    for (let i = 0; i < key.length; i++) {
      inner[i]! ^= key[i]!;
      outer[i]! ^= key[i]!;
    }
    pads = { inner, outer };
    padsBySecret.set(secret, pads);
  }
  return pads;
}
let message = Buffer.alloc(1024);

/**
 * HMAC-SHA256 of `text` under `secret`, as hex: the same bytes as `createHmac('sha256', secret)`, made of
 * two one-shot `crypto.hash` calls over pads kept per secret. `createHmac` makes a key object and an OpenSSL
 * context on every call, which measured at 10% of the gateway's CPU per contact submission under load.
 */
export function hmacSha256Hex(secret: string, text: string): string {
  const { inner, outer } = padsFor(secret);
  const length = SHA256_BLOCK_BYTES + Buffer.byteLength(text, 'utf8');
  if (message.length < length) message = Buffer.alloc(2 * length);
  inner.copy(message, 0);
  message.write(text, SHA256_BLOCK_BYTES, 'utf8');
  outer.write(hash('sha256', message.subarray(0, length), 'hex'), SHA256_BLOCK_BYTES, 'hex');
  return hash('sha256', outer, 'hex');
}

/**
 * An id made from what the client sent, the same whichever gateway computes it and whatever Redis has
 * forgotten: `<prefix>_` and 26 base32 characters (the first 130 bits) of HMAC-SHA256 under `secret` over
 * `parts`. Opaque (no one without the secret can test a guessed value against it), not sortable by time.
 */
function derivedId(prefix: 'sub' | 'con', secret: string, parts: readonly string[]): string {
  const digest = hmacSha256Hex(secret, parts.join('\0'));
  let id = `${prefix}_`;
  // 130 bits: six runs of 5 hex digits (20 bits, 4 characters), then the top 10 bits of the next 3 digits.
  for (let at = 0; at < 30; at += 5) {
    const bits = Number.parseInt(digest.slice(at, at + 5), 16);
    id += BASE32[bits >> 15]! + BASE32[(bits >> 10) & 31] + BASE32[(bits >> 5) & 31] + BASE32[bits & 31];
  }
  const last = Number.parseInt(digest.slice(30, 33), 16) >> 2;
  id += BASE32[last >> 5]! + BASE32[last & 31];
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
