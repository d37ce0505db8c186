import { createSpamCounters } from '@forms/spam-filter';
import { expect, it } from 'vitest';
import { loadConfig } from '../config.ts';
import { createSpamJudge, type JudgeInput } from './judge-submission.ts';

const { rules } = loadConfig({}).spam;
const input = (over: Partial<JudgeInput> = {}): JudgeInput => ({
  kind: 'contact',
  email: 'ada@acme.io',
  texts: ['Ada', 'Hello'],
  ip: '192.0.2.1',
  agent: undefined,
  ...over,
});
const unreachable = {
  provider: 'turnstile' as const,
  secret: 's',
  verifyUrl: 'http://127.0.0.1:9/siteverify',
  timeoutMs: 50,
  minScore: 0.5,
};

it('with no challenge and no Akismet the verdict is a value, not a promise: the ack path awaits nothing more', () => {
  const judge = createSpamJudge({ rules, challenge: undefined, filter: undefined, counters: createSpamCounters() });
  expect(judge(input())).toEqual({ spam: false, reasons: [] });
  // A provider configured but no form asking for one: still a value.
  const configured = createSpamJudge({
    rules,
    challenge: unreachable,
    filter: undefined,
    counters: createSpamCounters(),
  });
  expect(configured(input())).not.toBeInstanceOf(Promise);
});

it('a missing token is known without a call, and what the in-memory layers hold is never sent to the provider', () => {
  const required = { ...rules, contact: { ...rules.contact, challenge: 'required' as const } };
  const judge = createSpamJudge({
    rules: required,
    challenge: unreachable,
    filter: undefined,
    counters: createSpamCounters(),
  });
  const verdict = judge(input({ texts: ['x'] }));
  expect(verdict).toEqual({ spam: true, reasons: [{ layer: 'challenge', code: 'missing-token', weight: 1 }] });
  // Another provider's token is as good as none.
  const elsewhere = judge(input({ token: { field: 'h-captcha-response', value: 'tok' } }));
  expect(elsewhere).toEqual({ spam: true, reasons: [{ layer: 'challenge', code: 'missing-token', weight: 1 }] });
  // An agent is asked no challenge.
  expect(judge(input({ agent: 'some-agent' }))).toEqual({ spam: false, reasons: [], agent: 'some-agent' });
});

it('a provider that cannot be reached within its deadline abstains: not held, counted', async () => {
  const counters = createSpamCounters();
  const required = { ...rules, contact: { ...rules.contact, challenge: 'required' as const } };
  const judge = createSpamJudge({ rules: required, challenge: unreachable, filter: undefined, counters });
  const verdict = await judge(input({ token: { field: 'cf-turnstile-response', value: 'tok' } }));
  expect(verdict).toEqual({ spam: false, reasons: [] });
  expect(counters.unavailable.get('challenge')).toBe(1);
});
