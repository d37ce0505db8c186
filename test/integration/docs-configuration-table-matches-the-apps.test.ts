import { readdirSync, readFileSync } from 'node:fs';
import { join, relative } from 'node:path';
import { S3_ENV_ENTRIES } from '@forms/object-storage';
import { SHARED_ENV_ENTRIES } from '@forms/schemas';
import { describe, expect, it } from 'vitest';
import { markdownFiles, proseLines, REPO_ROOT, readDoc } from '../support/docs.ts';

/**
 * The configuration table (docs/configuration.md) and the code agree both ways. What the code reads is found
 * in its source, so a new variable needs no list kept by hand here: the keys of every valibot env schema
 * (`NAME: v.…` or `NAME: envPort`-style entries, in the apps' config.ts, the shared entries and the launcher)
 * and every direct `env.NAME` read (the tracing switch, the demo site).
 */
const SOURCE_TREES = ['apps', 'packages', 'scripts', 'examples'];
const SCHEMA_KEY = /\b([A-Z][A-Z0-9_]*[A-Z0-9]):\s*(?:v\.|env[A-Z]\w*\b)/g;
const DIRECT_READ = /\benv\.([A-Z][A-Z0-9_]*[A-Z0-9])\b/g;

function sourceFiles(): string[] {
  return SOURCE_TREES.flatMap((tree) =>
    readdirSync(join(REPO_ROOT, tree), { recursive: true, encoding: 'utf8' })
      .map((path) => join(tree, path))
      .filter((path) => /\.(ts|mjs)$/.test(path) && !/\.test(-d)?\.ts$/.test(path))
      .filter((path) => !/(^|\/)(node_modules|dist)\//.test(path)),
  );
}

function variablesTheCodeReads(): Map<string, string[]> {
  const readers = new Map<string, string[]>();
  for (const file of sourceFiles()) {
    const text = readFileSync(join(REPO_ROOT, file), 'utf8');
    for (const [, name] of [...text.matchAll(SCHEMA_KEY), ...text.matchAll(DIRECT_READ)]) {
      readers.set(name as string, [...(readers.get(name as string) ?? []), relative('.', file)]);
    }
  }
  return readers;
}

/** First-cell variable names of the table rows under a `## ` heading of docs/configuration.md. */
function tableVariables(heading: string): string[] {
  const lines = proseLines(readDoc('docs/configuration.md'));
  const start = lines.indexOf(`## ${heading}`);
  expect(start, `docs/configuration.md has a "## ${heading}" section`).toBeGreaterThanOrEqual(0);
  const end = lines.findIndex((line, index) => index > start && line.startsWith('## '));
  return lines
    .slice(start, end === -1 ? undefined : end)
    .flatMap((line) => /^\| (`[A-Z][^|]*?) +\|/.exec(line)?.[1] ?? [])
    .flatMap((cell) => [...cell.matchAll(/`([A-Z][A-Z0-9_]*)`/g)].map((match) => match[1] as string));
}

describe('the configuration table', () => {
  const read = variablesTheCodeReads();
  const listed = tableVariables('Variables our code reads');
  const standard = tableVariables('Standard variables the libraries read');

  it('finds the variables in the code (the shared entries are among them)', () => {
    for (const name of [...Object.keys(SHARED_ENV_ENTRIES), ...Object.keys(S3_ENV_ENTRIES), 'PORT', 'OPS_ACTOR']) {
      expect(read.has(name), name).toBe(true);
    }
  });

  it('lists every variable the code reads', () => {
    const missing = [...read].filter(([name]) => !listed.includes(name)).map(([name, files]) => `${name} (${files})`);
    expect(missing).toEqual([]);
  });

  it('lists only variables the code reads, each once', () => {
    expect(listed.filter((name) => !read.has(name))).toEqual([]);
    expect(listed.filter((name, index) => listed.indexOf(name) !== index)).toEqual([]);
  });

  it("keeps the libraries' own variables apart: OTEL_* names the code does not parse", () => {
    expect(standard.length).toBeGreaterThan(0);
    expect(standard.filter((name) => !name.startsWith('OTEL_') || read.has(name))).toEqual([]);
  });

  it('exists once: no other page has a table row for a variable', () => {
    const known = new Set([...listed, ...standard]);
    const elsewhere = markdownFiles()
      .filter((file) => file !== 'docs/configuration.md')
      .flatMap((file) =>
        proseLines(readDoc(file)).flatMap((line, index) => {
          const first = /^\| `([A-Z][A-Z0-9_]*)`/.exec(line)?.[1];
          return first !== undefined && known.has(first) ? [`${file}:${index + 1} ${first}`] : [];
        }),
      );
    expect(elsewhere).toEqual([]);
  });
});
