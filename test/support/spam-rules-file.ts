import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

/** Writes a spam rules file (SPAM_RULES_FILE; docs/site-forms.md) in a folder of its own, and returns its path. */
export function spamRulesFile(rules: object): string {
  const file = join(mkdtempSync(join(tmpdir(), 'spam-rules-')), 'rules.json');
  writeFileSync(file, JSON.stringify(rules));
  return file;
}
