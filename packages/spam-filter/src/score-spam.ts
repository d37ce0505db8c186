/**
 * A naive Bayes model over feature presence: how many spam and ham documents it learned from, and per feature
 * in how many of each it appeared. The starting model (made by `pnpm bench:spam-filter --write` from the
 * SpamAssassin corpus's `spam-1` and `easy-ham-1` folders) plus what ops taught it in this deployment.
 */
export type SpamModel = {
  spamDocs: number;
  hamDocs: number;
  features: Map<number, readonly [spam: number, ham: number]>;
};

/** Clues read per score: the strongest of a submission's known features (SpamBayes reads up to 150). */
const MAX_CLUES = 150;
/** A feature whose spam probability is within this of 0.5 says nothing, and is not a clue. */
const MIN_STRENGTH = 0.1;
/** Fewer clues than this: too little text to judge (a name, a phone number); the filter abstains. */
export const MIN_CLUES = 5;

/**
 * The probability-like score that a submission with these features is spam, as SpamBayes computes it
 * (Robinson's per-feature probability, Fisher's chi-square combining of the strongest clues): near 1 spam,
 * near 0 ham, near 0.5 unsure. Each class is weighed by its own share of messages (presence counts over the
 * class's message count), so the corpus's share of spam is not taken for a site's. Undefined with fewer than
 * MIN_CLUES clues.
 */
export function scoreSpam(model: SpamModel, features: ReadonlySet<number>): number | undefined {
  const clues: number[] = [];
  for (const feature of features) {
    const counts = model.features.get(feature);
    if (!counts) continue;
    const spamRatio = counts[0] / Math.max(1, model.spamDocs);
    const hamRatio = counts[1] / Math.max(1, model.hamDocs);
    const seen = counts[0] + counts[1];
    // Robinson: a feature seen rarely is pulled towards 0.5 (strength 1, unknown 0.5).
    const p = (0.5 + seen * (spamRatio / (spamRatio + hamRatio))) / (1 + seen);
    if (Math.abs(p - 0.5) >= MIN_STRENGTH) clues.push(p);
  }
  if (clues.length < MIN_CLUES) return undefined;
  clues.sort((a, b) => Math.abs(b - 0.5) - Math.abs(a - 0.5));
  const strongest = clues.slice(0, MAX_CLUES);
  let lnSpam = 0;
  let lnHam = 0;
  for (const p of strongest) {
    lnSpam += Math.log(1 - p);
    lnHam += Math.log(p);
  }
  const n = strongest.length;
  const spamminess = 1 - chi2Q(-2 * lnSpam, 2 * n);
  const hamminess = 1 - chi2Q(-2 * lnHam, 2 * n);
  return (spamminess - hamminess + 1) / 2;
}

/** The chi-square survival function for an even number of degrees of freedom. */
function chi2Q(x2: number, degrees: number): number {
  const m = x2 / 2;
  let term = Math.exp(-m);
  let sum = term;
  for (let i = 1; i < degrees / 2; i++) {
    term *= m / i;
    sum += term;
  }
  return Math.min(sum, 1);
}

/** The starting model as stored (JSON): counts keyed by the feature's hash in base 36. */
export type StoredSpamModel = { spamDocs: number; hamDocs: number; features: Record<string, [number, number]> };

export function readStoredModel(stored: StoredSpamModel): SpamModel {
  const features = new Map<number, readonly [number, number]>();
  for (const [key, counts] of Object.entries(stored.features)) features.set(Number.parseInt(key, 36), counts);
  return { spamDocs: stored.spamDocs, hamDocs: stored.hamDocs, features };
}
