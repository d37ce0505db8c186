import { describe, expect, it } from 'vitest';
import { isSubmissionIdShape } from '../admin/submission-status.ts';
import { contactId, keyedSubmissionId, newId } from './ids.ts';

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
});
