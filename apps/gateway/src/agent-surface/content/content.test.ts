import { cpSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { loadConfig } from '../../config.ts';
import { siteContent } from './content.ts';
import { CONTENT_DIR, fillTemplate } from './content-files.ts';

const config = loadConfig({});
let dir: string | undefined;
afterEach(() => {
  if (dir) rmSync(dir, { recursive: true, force: true });
  dir = undefined;
});

/** A copy of the content folder with one data file edited. */
function contentWith(file: string, edit: (json: any) => unknown): string {
  dir = mkdtempSync(join(tmpdir(), 'content-'));
  cpSync(CONTENT_DIR, dir, { recursive: true });
  writeFileSync(join(dir, file), JSON.stringify(edit(JSON.parse(readFileSync(join(dir, file), 'utf8')))));
  return dir;
}

describe('the content files', () => {
  it('stop start-up with the file and the field at fault', () => {
    const wrongType = contentWith('data/services.json', (s) => ({
      ...s,
      'rebriefing-playbook': { ...s['rebriefing-playbook'], includes: 'all' },
    }));
    expect(() => siteContent(config, wrongType)).toThrow(
      /^content file data\/services\.json: rebriefing-playbook\.includes: Invalid type: Expected Array/,
    );
  });

  it('reject a misspelt key instead of dropping it', () => {
    const misspelt = contentWith('data/agency.json', ({ tagline, ...rest }) => ({ ...rest, tagLine: tagline }));
    expect(() => siteContent(config, misspelt)).toThrow(/^content file data\/agency\.json: tagline: Invalid key/);
  });

  it('name a file that is not JSON', () => {
    const broken = contentWith('data/case-studies.json', () => null);
    writeFileSync(join(broken, 'data/case-studies.json'), '[{"id": ');
    expect(() => siteContent(config, broken)).toThrow(/^content file data\/case-studies\.json is not JSON/);
  });

  it('name a document template slot that the code does not fill', () => {
    const edited = contentWith('data/agency.json', (agency) => agency);
    writeFileSync(join(edited, 'documents/pricing.md'), '# Pricing: {{name}}\n\n{{pricnig}}\n');
    expect(() => fillTemplate('documents/pricing.md', { name: 'x', pricing: 'y' }, edited)).toThrow(
      'content file documents/pricing.md: unknown slot {{pricnig}} (known: name, pricing)',
    );
  });
});
