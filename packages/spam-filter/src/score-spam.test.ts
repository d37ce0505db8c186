import { expect, it } from 'vitest';
import { learnedHash, MIN_CLUES, scoreSpam, startingSpamModel, withLearned } from './index.ts';
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

it('a label taught by ops weighs the same share of its class on both sides (10 of 500 spam, 50 of 2,500 ham); the starting model is left as it was', () => {
  const features = spamFeatures(
    ['Buy real Instagram followers and TikTok likes cheap, boost your account ranking today'],
    'seller@followers.example',
  );
  const ham = spamFeatures(['Could you send the revised schedule for the shoot next week?'], 'ada@acme.io');
  const learned = learnedHash([
    { id: 'a', label: 'spam', features },
    { id: 'a', label: 'spam', features }, // the same submission twice counts once
    { id: 'b', label: 'ham', features: ham },
  ]);
  const taught = withLearned(model, learned);
  expect([taught.spamDocs, taught.hamDocs]).toEqual([510, 2550]);
  expect([model.spamDocs, model.hamDocs]).toEqual([500, 2500]);
  expect(scoreSpam(taught, features)).toBeGreaterThan(scoreSpam(model, features) ?? 0.5);
});

it("the sender's domain is a feature of its own, apart from the words (the same word in the text is another)", () => {
  const text = ['Could you send the revised schedule for the shoot next week?'];
  const from = spamFeatures(text, 'ada@acme.io');
  expect(from.size).toBe(spamFeatures(text).size + 2); // the domain and its top-level domain
  expect(spamFeatures([...text, 'acme.io'], 'ada@acme.io')).not.toEqual(from);
});

it('a link is read in parts: its scheme, host, host labels and path pieces, so a new host shares what it can', () => {
  const one = spamFeatures(['see https://cheap-pills.example/order/viagra now']);
  const other = spamFeatures(['see https://other-host.example/order/viagra now']);
  const shared = [...one].filter((f) => other.has(f)).length;
  expect(shared).toBeGreaterThan(spamFeatures(['see now']).size + 3); // proto, url:example, url:order, url:viagra
});
