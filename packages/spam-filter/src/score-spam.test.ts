import { expect, it } from 'vitest';
import { MIN_CLUES, scoreSpam, startingSpamModel, withLearned } from './index.ts';
import { MAX_FEATURES, spamFeatures } from './spam-features.ts';

const model = startingSpamModel();

it('the starting model is the corpus folders it was made from, 500 spam and 2,500 ham, in hashed features only', () => {
  expect([model.spamDocs, model.hamDocs]).toEqual([500, 2500]);
  expect(model.features.size).toBeGreaterThan(5_000);
  for (const key of model.features.keys()) expect(Number.isInteger(key)).toBe(true);
});

it('too little text to judge (a name, a greeting) is not scored: the filter abstains', () => {
  expect(scoreSpam(model, spamFeatures(['Ada Lovelace']))).toBeUndefined();
  expect(scoreSpam(model, spamFeatures(['Hello']))).toBeUndefined();
  expect(MIN_CLUES).toBeGreaterThan(1);
});

it('scores a classic spam high and a technical note low', () => {
  const spam =
    'MAKE MONEY FAST!!! Click here to claim your FREE offer, limited time only. Order now and save 80% on our best prices. Unsubscribe here.';
  const ham =
    'The patch fixes the kernel build on my laptop; I ran the tests again and the module loads cleanly now. Thanks for the review.';
  expect(scoreSpam(model, spamFeatures([spam]))).toBeGreaterThan(0.9);
  expect(scoreSpam(model, spamFeatures([ham]))).toBeLessThan(0.5);
});

it('reads at most MAX_FEATURES features from a submission, however long', () => {
  const words = Array.from({ length: 5_000 }, (_, i) => `word${i.toString(36)}x`).join(' ');
  expect(spamFeatures([words]).size).toBe(MAX_FEATURES);
});

it('a label taught by ops weighs 30 corpus messages; the starting model is left as it was', () => {
  const features = spamFeatures([
    'Buy real Instagram followers and TikTok likes cheap, boost your account ranking today',
  ]);
  const learned: Record<string, string> = { 'docs:spam': '1', 'docs:ham': '0' };
  for (const f of features) learned[`s:${f.toString(36)}`] = '1';
  const taught = withLearned(model, learned);
  expect(taught.spamDocs).toBe(530);
  expect(model.spamDocs).toBe(500);
  expect(scoreSpam(taught, features)).toBeGreaterThan(scoreSpam(model, features) ?? 0.5);
});
