import { InvalidArgumentError } from 'commander';
import { expect, it } from 'vitest';
import { parseTime } from './parse-time.ts';

// Issue 19, item 6: `ops failed --since "2026-11-25 junk"` was taken as June 11: any text starting with a
// date went to Date.parse, which reads what it can. An operator filtering on a mistyped date must hear so.
const now = Date.parse('2026-11-25T12:00:00Z');

it('a date followed by anything but a time is a usage error, not another date', () => {
  for (const bad of [
    '2026-11-25 junk',
    '2026-11-25junk',
    '2026-11-25T',
    '2026-11-25T25:00Z',
    '2026-02-31',
    '2026-13-01',
    '2026-11-25T09:30+25:00',
    '2026-11-25 9:30',
  ])
    expect(() => parseTime(bad, now), bad).toThrow(InvalidArgumentError);
});

it('ISO dates and times still parse, with or without seconds, offset or the T', () => {
  expect(parseTime('2026-11-25', now)).toBe(Date.parse('2026-11-25T00:00:00Z'));
  expect(parseTime('2026-11-25T09:30Z', now)).toBe(Date.parse('2026-11-25T09:30:00Z'));
  expect(parseTime('2026-11-25T09:30:15.250+01:00', now)).toBe(Date.parse('2026-11-25T08:30:15.250Z'));
  expect(parseTime('2026-11-25 09:30Z', now)).toBe(Date.parse('2026-11-25T09:30:00Z'));
  expect(parseTime('2026-11-25T09:30', now)).toBe(new Date(2026, 10, 25, 9, 30).getTime()); // local, as ISO says
});
