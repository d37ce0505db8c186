import * as v from 'valibot';

export type MaxCodePointsIssue = v.BaseIssue<string> & {
  readonly kind: 'validation';
  readonly type: 'max_code_points';
  readonly requirement: number;
};

/** Unicode code points in `text`: what JSON Schema's maxLength counts (a lone surrogate counts as one). */
export function countCodePoints(text: string): number {
  let count = 0;
  for (const _ of text) count++;
  return count;
}

/**
 * A string cap counted as JSON Schema counts `maxLength`, in code points, so a client validating against
 * /openapi.json agrees with the gateway: 150 emoji fit a 200 cap (valibot's `maxLength` counts UTF-16 units,
 * 300 here, and `maxGraphemes` counts what a reader sees, which no JSON Schema validator does). Rendered as
 * `maxLength` by JSON_SCHEMA_CONFIG.
 */
export function maxCodePoints(requirement: number): v.BaseValidation<string, string, MaxCodePointsIssue> & {
  readonly type: 'max_code_points';
  readonly requirement: number;
  readonly message: undefined;
} {
  return {
    kind: 'validation',
    type: 'max_code_points',
    reference: maxCodePoints,
    async: false,
    expects: `<=${requirement}`,
    requirement,
    message: undefined,
    '~run'(dataset, config) {
      // A string has at least as many UTF-16 units as code points: only a long one needs counting.
      if (dataset.typed && dataset.value.length > this.requirement) {
        const count = countCodePoints(dataset.value);
        if (count > this.requirement) v._addIssue(this, 'length', dataset, config, { received: `${count}` });
      }
      return dataset as v.OutputDataset<string, MaxCodePointsIssue>;
    },
  };
}
