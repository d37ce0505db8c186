import { expect, it } from 'vitest';
import { filterFlag } from './filter-flag.ts';

const cutoffs = { threshold: 0.9, unsure: 0.5 };

it('a score at or over the spam cutoff holds alone; from the ham cutoff up it is unsure and counts half; below, nothing', () => {
  expect(filterFlag(0.95, cutoffs)).toEqual({ layer: 'filter', code: 'score', detail: '0.9500 >= 0.9', weight: 1 });
  expect(filterFlag(0.9, cutoffs)?.weight).toBe(1);
  expect(filterFlag(0.7, cutoffs)).toEqual({ layer: 'filter', code: 'unsure', detail: '0.7000 >= 0.5', weight: 0.5 });
  expect(filterFlag(0.5, cutoffs)?.code).toBe('unsure');
  expect(filterFlag(0.4999, cutoffs)).toBeUndefined();
});

it('a spam cutoff set below the ham cutoff leaves no unsure band: every flag holds', () => {
  expect(filterFlag(0.45, { threshold: 0.4, unsure: 0.5 })?.weight).toBe(1);
  expect(filterFlag(0.3, { threshold: 0.4, unsure: 0.5 })).toBeUndefined();
});
