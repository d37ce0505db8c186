/** The content filter's flag on a submission: a reason as the judge keeps it (SpamReasonSchema). */
export type FilterFlag = { layer: 'filter'; code: 'score' | 'unsure'; detail: string; weight: number };

export type FilterCutoffs = {
  /** The spam cutoff: a score at or above it holds the submission alone. */
  threshold: number;
  /** The ham cutoff: a score from here to the threshold is unsure, and counts half. */
  unsure: number;
};

/**
 * What a score says (SpamBayes' two cutoffs): at or above the threshold, spam, at full weight (the starting
 * model's precision there earns it: no ham of the corpus's 2,500 held in 5-fold cross-validation,
 * docs/benchmarks.md#spam-filter); from the ham cutoff up, unsure, half a reason (delivered, the reason kept
 * visible, held only beside another half); below, nothing.
 */
export function filterFlag(score: number, { threshold, unsure }: FilterCutoffs): FilterFlag | undefined {
  if (score >= threshold)
    return { layer: 'filter', code: 'score', detail: `${score.toFixed(4)} >= ${threshold}`, weight: 1 };
  if (score >= unsure)
    return { layer: 'filter', code: 'unsure', detail: `${score.toFixed(4)} >= ${unsure}`, weight: 0.5 };
  return undefined;
}
