import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { docExists, headingAnchors, REPO_ROOT, readDoc } from '../support/docs.ts';

/**
 * Code, configuration and test files that point a reader at the manual name a page and section that exist.
 * A citation is written `docs/<page>.md#<anchor>` (the anchor as GitHub makes it from the heading), or
 * the README's name followed by a quoted heading; a section named without quotes cannot be checked and
 * is refused too.
 */
const TREES = ['apps', 'packages', 'scripts', 'test', 'infra', 'examples'];
const TEXT_FILE = /\.(ts|mjs|js|json|ya?ml|sh|conf)$/;
const DOC_CITATION = /\bdocs\/([\w-]+\.md)(?:#([\w-]+))?/g;
const README_HEADING = /\bREADME(?:'s|,)? +(?:section +)?"([^"]+)"/g;
const UNCHECKABLE = /\bREADME(?:'s|,)? +(?:section|under) +[A-Z]/g;

function sourceFiles(): string[] {
  return TREES.flatMap((tree) =>
    readdirSync(join(REPO_ROOT, tree), { recursive: true, encoding: 'utf8' })
      .map((path) => join(tree, path))
      .filter((path) => TEXT_FILE.test(path) && !/(^|\/)(node_modules|dist)\//.test(path)),
  );
}

function badCitations(): string[] {
  const readmeAnchors = headingAnchors(readDoc('README.md'));
  const readmeHeadings = new Set(
    readDoc('README.md')
      .split('\n')
      .flatMap((line) => /^#{1,6} +(.+)$/.exec(line)?.[1] ?? []),
  );
  return sourceFiles().flatMap((file) => {
    const text = readFileSync(join(REPO_ROOT, file), 'utf8');
    const line = (index: number) => `${file}:${text.slice(0, index).split('\n').length}`;
    return [
      ...[...text.matchAll(DOC_CITATION)].flatMap((match) => {
        const [citation, page, anchor] = match;
        if (!docExists(`docs/${page}`)) return [`${line(match.index)} ${citation}: no such page`];
        if (anchor !== undefined && !headingAnchors(readDoc(`docs/${page}`)).has(anchor))
          return [`${line(match.index)} ${citation}: no such section`];
        return [];
      }),
      ...[...text.matchAll(README_HEADING)].flatMap((match) =>
        readmeHeadings.has(match[1] as string) || readmeAnchors.has(match[1] as string)
          ? []
          : [`${line(match.index)} ${match[0]}: the README has no such heading`],
      ),
      ...[...text.matchAll(UNCHECKABLE)].map(
        (match) => `${line(match.index)} ${match[0]}…: cite docs/<page>.md#<anchor> instead`,
      ),
    ];
  });
}

describe('code comments that cite the manual', () => {
  it('cite pages and sections that exist', () => {
    expect(badCitations()).toEqual([]);
  });

  it('are found (the runbook links of the alert rules are among them)', () => {
    const cited = sourceFiles().filter((file) =>
      readFileSync(join(REPO_ROOT, file), 'utf8').includes('docs/operations.md#'),
    );
    expect(cited).toContain('infra/prometheus/alerts.yml');
  });
});
