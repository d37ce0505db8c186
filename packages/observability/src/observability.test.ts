import { Writable } from 'node:stream';
import { describe, expect, it } from 'vitest';
import { createLogger } from './create-logger.ts';
import { maskPii } from './mask-pii.ts';
import { scrubPii } from './scrub-pii.ts';
import { tokenMatches } from './token-matches.ts';

function capture() {
  const lines: string[] = [];
  const stream = new Writable({
    write(chunk, _enc, done) {
      lines.push(String(chunk));
      done();
    },
  });
  return { lines, stream };
}

describe('scrubPii', () => {
  it('masks emails, phone numbers and refused values, keeps dates and ids', () => {
    const text =
      'Payload does not match contact.v1: data.email: Invalid email: Received "ada@@x" at 2026-01-01T10:00:00.000Z; ' +
      'no record for Email=grace@navy.example, call +44 20 7946 0958 (job sub_01JABCDEF0123456789ABCDEFG) via 127.0.0.1:6379';
    const out = scrubPii(text);
    expect(out).not.toMatch(/ada@@x|grace@navy|7946/);
    expect(out).toContain('Received [value]');
    expect(out).toContain('Email=[email]');
    expect(out).toContain('[phone]');
    expect(out).toContain('2026-01-01T10:00:00.000Z');
    expect(out).toContain('sub_01JABCDEF0123456789ABCDEFG');
    expect(out).toContain('127.0.0.1:6379');
  });
});

describe('maskPii', () => {
  it('masks personal fields at any depth and leaves the rest', () => {
    expect(
      maskPii({
        email: 'ada@acme.io',
        name: 'Ada',
        phoneNumber: '+44 20 0000 0042',
        role: 'CTO',
        nested: [{ fullName: 'Grace' }],
      }),
    ).toEqual({
      email: 'a***@acme.io',
      name: 'A***',
      phoneNumber: '***42',
      role: 'CTO',
      nested: [{ fullName: 'G***' }],
    });
  });
});

describe('tokenMatches', () => {
  it('accepts the token only', () => {
    expect(tokenMatches('s3cret-token', 's3cret-token')).toBe(true);
    expect(tokenMatches('s3cret-tokex', 's3cret-token')).toBe(false);
    expect(tokenMatches('short', 's3cret-token')).toBe(false);
    expect(tokenMatches(undefined, 's3cret-token')).toBe(false);
    expect(tokenMatches('', '')).toBe(false);
  });

  it('accepts either of two tokens in a rotation window, and no unset or empty one', () => {
    const tokens = ['the-new-token', 'the-old-token'];
    expect(tokenMatches('the-new-token', tokens)).toBe(true);
    expect(tokenMatches('the-old-token', tokens)).toBe(true);
    expect(tokenMatches('the-odd-token', tokens)).toBe(false);
    expect(tokenMatches('', ['the-new-token', undefined, ''])).toBe(false);
  });
});

describe('createLogger', () => {
  it('redacts personal fields, submissions and secrets, and scrubs error messages and the message string', () => {
    const { lines, stream } = capture();
    const logger = createLogger({ level: 'debug' }, stream);
    logger.info(
      { email: 'ada@acme.io', job: { data: { name: 'Ada' } }, headers: { authorization: 'Bearer t0k3n' } },
      'x',
    );
    const err = Object.assign(new Error('duplicate key for grace@navy.example'), {
      detail: 'Failing row contains (Grace Hopper)',
    });
    logger.warn({ err }, 'delivery failed');
    logger.debug('sent to hopper@navy.example');
    logger.warn({ err: 'Airtable 422 INVALID_VALUE_FOR_COLUMN: Cannot accept "x" for Katherine Johnson' }, 'refused');
    const all = lines.join('');
    for (const secret of [
      'ada@acme.io',
      'Ada',
      't0k3n',
      'grace@navy.example',
      'Grace Hopper',
      'hopper@navy.example',
      'Katherine',
    ])
      expect(all).not.toContain(secret);
    expect(all).toContain('[redacted]');
    expect(all).toContain('Airtable 422 INVALID_VALUE_FOR_COLUMN: [CRM text withheld');
    expect(lines).toHaveLength(4);
  });
});
