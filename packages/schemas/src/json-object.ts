import * as v from 'valibot';

type NotArrayIssue = v.BaseIssue<Record<string, unknown>> & { readonly kind: 'validation'; readonly type: 'not_array' };

function notArray(): v.BaseValidation<Record<string, unknown>, Record<string, unknown>, NotArrayIssue> & {
  readonly type: 'not_array';
  readonly message: undefined;
} {
  return {
    kind: 'validation',
    type: 'not_array',
    reference: notArray,
    async: false,
    expects: 'Object',
    message: undefined,
    '~run'(dataset, config) {
      if (dataset.typed && Array.isArray(dataset.value))
        v._addIssue(this, 'type', dataset, config, { received: 'Array' });
      return dataset as v.OutputDataset<Record<string, unknown>, NotArrayIssue>;
    },
  };
}

/**
 * A JSON object with any members. valibot's `record` and `object` let an array through (it is an object to
 * `typeof`), while their JSON Schema form, `type: object`, refuses one; this refuses it too, so the two agree.
 */
export function jsonObject() {
  return v.pipe(v.record(v.string(), v.unknown()), notArray());
}
