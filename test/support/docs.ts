import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import GithubSlugger from 'github-slugger';

/**
 * The manual (README.md and docs/*.md) read as GitHub renders it, for the tests that keep it true: its
 * headings' anchors (GitHub's own slug rule, `github-slugger`), its links, and the text outside code.
 */
export const REPO_ROOT = join(import.meta.dirname, '..', '..');

/** README.md and every page under docs/, as paths from the repository's root. */
export function markdownFiles(): string[] {
  const docs = readdirSync(join(REPO_ROOT, 'docs'))
    .filter((name) => name.endsWith('.md'))
    .sort()
    .map((name) => `docs/${name}`);
  return ['README.md', ...docs];
}

export function readDoc(path: string): string {
  return readFileSync(join(REPO_ROOT, path), 'utf8');
}

export function docExists(path: string): boolean {
  return existsSync(join(REPO_ROOT, path));
}

/** Each line with fenced code blocks blanked (their `#` lines are not headings, their brackets not links). */
export function proseLines(markdown: string): string[] {
  let fence: string | undefined;
  return markdown.split('\n').map((line) => {
    const marker = /^\s*(```|~~~)/.exec(line)?.[1];
    if (marker && (fence === undefined || fence === marker)) {
      fence = fence === undefined ? marker : undefined;
      return '';
    }
    return fence === undefined ? line : '';
  });
}

/** The anchors GitHub gives the page's headings (`## Spam quarantine` → `spam-quarantine`, repeats `-1`…). */
export function headingAnchors(markdown: string): Set<string> {
  const slugger = new GithubSlugger();
  const anchors = new Set<string>();
  for (const line of proseLines(markdown)) {
    const heading = /^#{1,6} +(.+?) *#* *$/.exec(line)?.[1];
    if (heading !== undefined) anchors.add(slugger.slug(heading));
  }
  return anchors;
}

export type Link = Readonly<{ target: string; line: number }>;

/** Inline links and images, `[text](target)`, outside code blocks and code spans. */
export function links(markdown: string): Link[] {
  return proseLines(markdown).flatMap((text, index) =>
    [...text.replace(/`[^`]*`/g, '``').matchAll(/\]\(([^)\s]+)(?:\s+"[^"]*")?\)/g)].map((match) => ({
      target: match[1] as string,
      line: index + 1,
    })),
  );
}
