import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { expect, it } from 'vitest';
import { loadConfig } from '../config.ts';

// A rules file is read once, at start; a rule that cannot work stops the start with a message naming it,
// never a worker that runs without the rule its operator thinks it has.
const dir = mkdtempSync(join(tmpdir(), 'spam-rules-'));
function rulesFile(content: string): string {
  const file = join(dir, `${Math.random().toString(36).slice(2)}.json`);
  writeFileSync(file, content);
  return file;
}

it.each([
  [{ contact: { patterns: ['ok', '(unclosed'] } }, /contact\.patterns\.1 is not a valid regular expression/],
  [{ contakt: { keywords: ['x'] } }, /keys must be "\*" or a form kind/],
  [{ '*': { maxLinks: -1 } }, /\*\.maxLinks/],
  [{ contact: { keyword: ['typo'] } }, /contact\.keyword/],
  [{ contact: { challenge: 'sometimes' } }, /contact\.challenge/],
  [{ contact: { keywords: [''] } }, /contact\.keywords\.0 must not be empty/],
])('%j stops the start naming the rule', (rules, message) => {
  const file = rulesFile(JSON.stringify(rules));
  expect(() => loadConfig({ SPAM_RULES_FILE: file })).toThrow(message);
  expect(() => loadConfig({ SPAM_RULES_FILE: file })).toThrow(/^Invalid configuration: SPAM_RULES_FILE /);
});

it('a file that is not JSON, or not there, stops the start naming the variable', () => {
  expect(() => loadConfig({ SPAM_RULES_FILE: rulesFile('{ contact: ') })).toThrow(/SPAM_RULES_FILE .*JSON/);
  expect(() => loadConfig({ SPAM_RULES_FILE: join(dir, 'missing.json') })).toThrow(/SPAM_RULES_FILE .*ENOENT/);
});

it('a form asking for a challenge with no provider configured stops the start', () => {
  const file = rulesFile(JSON.stringify({ contact: { challenge: 'required' } }));
  expect(() => loadConfig({ SPAM_RULES_FILE: file })).toThrow(/contact\.challenge is required but CHALLENGE_PROVIDER/);
  expect(() => loadConfig({ CHALLENGE_PROVIDER: 'turnstile' })).toThrow(/CHALLENGE_SECRET/);
  const config = loadConfig({ SPAM_RULES_FILE: file, CHALLENGE_PROVIDER: 'hcaptcha', CHALLENGE_SECRET: 's' });
  expect(config.spam.challenge).toMatchObject({
    provider: 'hcaptcha',
    verifyUrl: 'https://api.hcaptcha.com/siteverify',
  });
  expect(config.spam.rules.contact.challenge).toBe('required');
  expect(config.spam.rules['creator-signup'].challenge).toBe('off');
});
