import { dirname, join, normalize } from 'node:path';
import { describe, expect, it } from 'vitest';
import { docExists, headingAnchors, links, markdownFiles, readDoc } from '../support/docs.ts';

// Every relative link of the manual names a file that exists, and every #anchor a heading of its page (as
// GitHub slugs it). External links (http, mailto) are not fetched: the suite runs offline.
function brokenLinks(file: string): string[] {
  return links(readDoc(file)).flatMap(({ target, line }) => {
    if (/^[a-z][a-z+.-]*:/i.test(target)) return [];
    const [path = '', anchor] = target.split('#');
    const page = path === '' ? file : normalize(join(dirname(file), decodeURIComponent(path)));
    const where = `${file}:${line} → ${target}`;
    if (page.startsWith('..') || !docExists(page)) return [`${where}: no such file`];
    if (anchor === undefined || !page.endsWith('.md')) return [];
    return headingAnchors(readDoc(page)).has(anchor) ? [] : [`${where}: no heading with that anchor`];
  });
}

describe('the manual (README.md and docs/)', () => {
  it('has pages, with links to check', () => {
    expect(markdownFiles().length).toBeGreaterThan(5);
    expect(links(readDoc('README.md')).length).toBeGreaterThan(5);
  });

  for (const file of markdownFiles()) {
    it(`${file}: every relative link and anchor resolves`, () => {
      expect(brokenLinks(file)).toEqual([]);
    });
  }

  it('reaches every guide from the README', () => {
    const linked = new Set(
      links(readDoc('README.md')).map(({ target }) => normalize((target.split('#')[0] as string) || 'README.md')),
    );
    expect(markdownFiles().filter((file) => !linked.has(file))).toEqual(['README.md']);
  });
});
