import { SUBMISSION_ENDPOINTS } from '@forms/schemas';
import { isWorkEmail } from '@forms/spam-filter';
import * as v from 'valibot';
import { describe, expect, it } from 'vitest';

// Issue 30.6: `ada@xn--exmple-cua.de` (ada@exämple.de in the ASCII form mail servers use) was a 400
// INVALID_EMAIL: the rule let a hyphen join two letters only once, so every punycode label (`xn--…`) failed.
const ACCEPTED = [
  'ada@xn--exmple-cua.de',
  'ada@mail.xn--exmple-cua.de',
  'ada@xn--80ak6aa92e.xn--p1ai', // a punycode top-level label (.рф)
  'ada@a--b.acme.io',
  "o'brien@acme.io",
  'ada!{x}|y~z=#$%&*/?^`@acme.io',
  `ada@${'a'.repeat(63)}.io`,
];
const REFUSED = [
  'ada@-acme.io',
  'ada@acme-.io',
  'ada@acme.i0',
  'ada@acme.c',
  'ada@acme',
  'ada@1.2.3.4',
  'ada@[127.0.0.1]',
  '"ada"@acme.io',
  'ada@exämple.de',
  'ädä@acme.io',
  '.ada@acme.io',
  'ada.@acme.io',
  'a..da@acme.io',
  'ada@acme..io',
  'ada@xn--.io',
  `ada@${'a'.repeat(64)}.io`,
];

const bodyWith = (field: string, email: string) => ({ name: 'N', role: 'R', fullName: 'F', [field]: email });

describe('the email rule takes what mail servers take in ASCII form', () => {
  for (const endpoint of SUBMISSION_ENDPOINTS) {
    it(`${endpoint.path}: accepts ${ACCEPTED.length}, refuses ${REFUSED.length}`, () => {
      const ok = (email: string) => v.safeParse(endpoint.request, bodyWith(endpoint.emailField, email)).success;
      expect(ACCEPTED.filter((email) => !ok(email))).toEqual([]);
      expect(REFUSED.filter(ok)).toEqual([]);
    });
  }
});

describe('work email holds for punycode domains', () => {
  it('a free-mail or disposable domain in punycode is personal, itself or a parent', () => {
    // Both lists hold every internationalised domain in its ASCII form (foto-en-el-álbum.info as well as
    // xn--foto-en-el-lbum-xjb.info), the only form the email rule lets through.
    expect(isWorkEmail('ada@xn--5nx.cc')).toBe(false);
    expect(isWorkEmail('ada@mail.xn--5nx.cc')).toBe(false);
    expect(isWorkEmail('ada@xn--foto-en-el-lbum-xjb.info')).toBe(false);
    expect(isWorkEmail('ada@xn--exmple-cua.de')).toBe(true);
  });
});
