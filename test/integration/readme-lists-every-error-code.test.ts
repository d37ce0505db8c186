import { readFileSync } from 'node:fs';
import { ERROR_CODES } from '@forms/schemas';
import { describe, expect, it } from 'vitest';

describe("the README's error table", () => {
  it('lists every code of the one error table, with its status', () => {
    const readme = readFileSync(new URL('../../README.md', import.meta.url), 'utf8');
    const missing = Object.entries(ERROR_CODES)
      .filter(([code, { status }]) => !new RegExp(`^\\| \`${code}\` +\\| ${status} `, 'm').test(readme))
      .map(([code]) => code);
    expect(missing).toEqual([]);
  });
});
