import { createHmac } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { isSubmissionIdShape } from '../admin/submission-status.ts';
import { contactId, hmacSha256Hex, keyedSubmissionId, newId } from './ids.ts';

const SECRET = 'a-secret-of-at-least-32-characters!!';

describe('ids', () => {
  it('derives the same id from the same input, on any gateway, in the shape of a ULID id', () => {
    const sub = keyedSubmissionId(SECRET, 'key-1', 'fingerprint');
    const con = contactId(SECRET, 'ada@acme.io');
    expect(keyedSubmissionId(SECRET, 'key-1', 'fingerprint')).toBe(sub);
    expect(contactId(SECRET, 'ada@acme.io')).toBe(con);
    for (const id of [sub, con, newId('sub')]) expect(isSubmissionIdShape(id)).toBe(true);
    expect(sub).toMatch(/^sub_/);
    expect(con).toMatch(/^con_/);
  });

  it('gives another id for another key, body, email or secret, and none names the email', () => {
    const ids = [
      keyedSubmissionId(SECRET, 'key-1', 'fingerprint'),
      keyedSubmissionId(SECRET, 'key-2', 'fingerprint'),
      keyedSubmissionId(SECRET, 'key-1', 'other body'),
      keyedSubmissionId(`${SECRET}x`, 'key-1', 'fingerprint'),
      contactId(SECRET, 'ada@acme.io'),
      contactId(SECRET, 'grace@acme.io'),
      contactId(`${SECRET}x`, 'ada@acme.io'),
    ];
    expect(new Set(ids.map((id) => id.slice(4))).size).toBe(ids.length);
    for (const id of ids) expect(id).not.toMatch(/ada|grace|acme/);
  });

  it('keeps the ids the CRM already holds: the same values as before the HMAC was made from crypto.hash', () => {
    // Computed with createHmac('sha256', secret).update(parts.join('\0')), as the ids were first derived.
    expect(contactId('', 'ada@acme.io')).toBe('con_5g5z09sya8x4rp3teyeajyyhm3');
    expect(keyedSubmissionId(SECRET, 'key-1', 'fp')).toBe('sub_c8sv6mqzq3wwny118w6wt617fv');
  });

  it('computes HMAC-SHA256 as createHmac does, for secrets and texts of any length and script', () => {
    const secrets = ['', SECRET, 'k'.repeat(64), 'k'.repeat(65), 'ß'.repeat(40), 'x'.repeat(300)];
    const texts = ['', 'contact\0ada@acme.io', 'é'.repeat(700), 'y'.repeat(5_000), '\u{1F600}'];
    for (const secret of secrets)
      for (const text of texts)
        expect(hmacSha256Hex(secret, text)).toBe(createHmac('sha256', secret).update(text).digest('hex'));
  });
});
