import { execFileSync } from 'node:child_process';
import { existsSync, lstatSync, mkdirSync, mkdtempSync, readdirSync, readlinkSync, rmSync, symlinkSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { REPO_ROOT } from './spawn-app.ts';

/**
 * The apps and packages of an older commit in a temporary folder, runnable with this checkout's installed
 * dependencies: `git archive` (no worktree registered in the shared repository), then each workspace folder's
 * node_modules made of this checkout's links (pnpm's relative links into node_modules/.pnpm, which is linked
 * to ours; `@forms/*` links land on the old commit's own packages). A package the old code imported from a
 * folder that no longer lists it is found among the other folders' links. Seconds, offline; `remove()` ends it.
 */
export function oldCheckout(commit: string): { root: string; remove: () => void } {
  const root = mkdtempSync(join(tmpdir(), `forms-${commit.slice(0, 7)}-`));
  execFileSync('sh', [
    '-c',
    `git -C "${REPO_ROOT}" archive ${commit} apps packages package.json | tar -x -C "${root}"`,
  ]);
  const ours = (dir: string) => join(REPO_ROOT, dir, 'node_modules');
  const folders = ['apps', 'packages'].flatMap((group) =>
    readdirSync(join(REPO_ROOT, group)).map((name) => `${group}/${name}`),
  );
  const everyLink = folders.filter((dir) => existsSync(ours(dir)));
  mkdirSync(join(root, 'node_modules'));
  symlinkSync(join(REPO_ROOT, 'node_modules', '.pnpm'), join(root, 'node_modules', '.pnpm'));
  copyLinks(ours('.'), join(root, 'node_modules'));
  for (const dir of folders) {
    if (!existsSync(join(root, dir))) continue;
    // Its own links first, then any other folder's for what it no longer lists (never overwriting).
    for (const from of [dir, ...everyLink].filter((d) => existsSync(ours(d))))
      copyLinks(ours(from), join(root, dir, 'node_modules'));
  }
  return { root: `${root}/`, remove: () => rmSync(root, { recursive: true, force: true }) };
}

/** pnpm's links of one node_modules (scoped folders one level down) into another, as they are, never over one there. */
function copyLinks(from: string, to: string): void {
  mkdirSync(to, { recursive: true });
  for (const entry of readdirSync(from)) {
    if (entry === '.pnpm' || entry === '.bin' || entry.startsWith('.')) continue;
    const source = join(from, entry);
    if (!lstatSync(source).isSymbolicLink()) copyLinks(source, join(to, entry));
    else if (!existsSync(join(to, entry)) && !isLink(join(to, entry)))
      symlinkSync(readlinkSync(source), join(to, entry));
  }
}

function isLink(path: string): boolean {
  try {
    return lstatSync(path).isSymbolicLink();
  } catch {
    return false;
  }
}
