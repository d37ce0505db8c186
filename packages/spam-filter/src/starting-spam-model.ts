import { readStoredModel, type SpamModel, type StoredSpamModel } from './score-spam.ts';
import stored from './starting-model.json' with { type: 'json' };

/**
 * The model the filter starts with before any label of this deployment's: naive Bayes counts from the
 * SpamAssassin public corpus's `spam-1` and `easy-ham-1` folders (Apache-2.0), made by
 * `pnpm bench:spam-filter --write`. Read once per call: keep the result.
 */
export function startingSpamModel(): SpamModel {
  return readStoredModel(stored as unknown as StoredSpamModel);
}
