import { execFile } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { REPO_ROOT } from './docs.ts';

/**
 * The site client as sites get it (tsup with the package's own config: the bytes its size script measures),
 * built into a folder of the caller's own for a test's pages (`startSiteServer({ clientDir })`). Never into
 * `packages/client/dist`: tsup empties that folder first, and the pack test packs it at the same time in
 * another worker (CI once packed a client without `dist/index.js`).
 */
export async function buildSiteClient(): Promise<{ dir: string; remove: () => void }> {
  const dir = mkdtempSync(join(tmpdir(), 'site-client-'));
  await promisify(execFile)(join(REPO_ROOT, 'node_modules/.bin/tsup'), ['--silent', '--out-dir', dir], {
    cwd: join(REPO_ROOT, 'packages/client'),
  });
  return { dir, remove: () => rmSync(dir, { recursive: true, force: true }) };
}
