import { expect, it } from 'vitest';
import { acceptedAtNow } from './accepted-at.ts';

it("is toISOString's text for the millisecond asked, whichever was asked before", () => {
  for (const ms of [0, 1_795_800_000_000, 1_795_800_000_000, 1_795_800_000_001, 1_795_799_999_999, Date.now()])
    expect(acceptedAtNow(ms)).toBe(new Date(ms).toISOString());
  expect(acceptedAtNow()).toMatch(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$/);
});
