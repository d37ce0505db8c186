import { ERROR_CODES } from '@forms/schemas';
import { describe, expect, it } from 'vitest';
import { markdownFiles, readDoc } from '../support/docs.ts';

// A row of an error table: `| `CODE` | 400 | …`.
const ERROR_ROW = /^\| `([A-Z][A-Z0-9_]+)` +\| (\d{3}) +\|/gm;

function errorRows(text: string): Map<string, number> {
  return new Map([...text.matchAll(ERROR_ROW)].map(([, code, status]) => [code as string, Number(status)]));
}

describe("the API guide's error table", () => {
  it('lists every code of the one error table with its status, and no code the table lacks', () => {
    const listed = errorRows(readDoc('docs/api.md'));
    const defined = new Map(Object.entries(ERROR_CODES).map(([code, { status }]) => [code, status]));
    expect(listed.size).toBeGreaterThan(10);
    expect(Object.fromEntries(listed)).toEqual(Object.fromEntries(defined));
  });

  it('exists once: no other page keeps an error table', () => {
    const elsewhere = markdownFiles()
      .filter((file) => file !== 'docs/api.md')
      .filter((file) => errorRows(readDoc(file)).size > 0);
    expect(elsewhere).toEqual([]);
  });
});
