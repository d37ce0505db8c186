import { execFileSync } from 'node:child_process';
import { existsSync, mkdtempSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, expect, it } from 'vitest';
import { REPO_ROOT, readDoc } from '../support/docs.ts';
import { buildSiteClient } from '../support/site-client.ts';

// Issue 30.11: the site-forms guide never said how a site outside this repository gets `@forms/client`, and
// it could not: the package is private and its exports point at TypeScript source. This runs the guide's
// recipe (its `sh` block under "For a site outside this repository"), with a folder of its own for the pack
// and for the site, and imports both entries with plain Node, as a site's build would.
const work = mkdtempSync(join(tmpdir(), 'client-pack-'));
afterAll(() => rmSync(work, { recursive: true, force: true }));

it('the guide recipe packs a client a site outside the repository installs and imports', () => {
  const guide = readDoc('docs/site-forms.md');
  const section = guide.slice(guide.indexOf('### For a site outside this repository'));
  const block = /```sh\n([\s\S]*?)```/.exec(section)![1]!;
  const [pack, install] = block
    .trim()
    .split('\n')
    .map((line) => line.replace(/\s{2,}#\s.*$/, ''));
  const site = join(work, 'your-site');
  execFileSync('mkdir', ['-p', site]);
  writeFileSync(join(site, 'package.json'), '{"name":"your-site","private":true,"type":"module"}');
  const sh = (command: string, cwd: string) =>
    execFileSync('bash', ['-c', command], { cwd, encoding: 'utf8', stdio: 'pipe' });
  sh(pack!.replaceAll('/tmp', work), REPO_ROOT);
  sh(
    install!
      .replaceAll('/tmp', work)
      .replace('cd ../your-site', `cd ${site}`)
      .replace('npm install', 'npm install --offline --no-audit --no-fund'),
    work,
  );
  const imported = sh(
    `node --input-type=module -e "
      const { createFormsClient } = await import('@forms/client');
      const { checkSubmission } = await import('@forms/client/checks');
      const forms = createFormsClient({ baseUrl: 'http://127.0.0.1:9' });
      console.log(JSON.stringify([typeof forms.submitContact, checkSubmission('contact', { email: 'nope' })?.code]));"`,
    site,
  );
  expect(JSON.parse(imported)).toEqual(['function', 'INVALID_EMAIL']);
}, 120_000);

// CI once packed a client without `dist/index.js`: the browser tests, in other workers, built the client with
// tsup into `packages/client/dist`, which tsup empties first, while this file's recipe packed that folder.
// A test's pages now get a build of their own; this proves that build leaves the packed folder alone.
it('client-built-for-test-pages-leaves-the-packed-dist-alone', async () => {
  const dist = join(REPO_ROOT, 'packages/client/dist');
  const before = existsSync(dist) ? statSync(dist, { bigint: true }) : undefined;
  const client = await buildSiteClient();
  try {
    expect(existsSync(join(client.dir, 'index.js')) && existsSync(join(client.dir, 'checks.js'))).toBe(true);
    const after = existsSync(dist) ? statSync(dist, { bigint: true }) : undefined;
    // tsup's clean empties the folder and its build writes it again: either changes the folder's mtime.
    expect(after?.mtimeNs).toBe(before?.mtimeNs);
  } finally {
    client.remove();
  }
}, 60_000);
