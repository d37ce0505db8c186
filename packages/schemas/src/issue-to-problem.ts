import * as v from 'valibot';
import type { ErrorCode } from './errors.ts';

const EMAIL_FIELDS = new Set(['email', 'workEmail']);

/** White space and NUL only: what normalisation would leave empty. */
// biome-ignore lint/suspicious/noControlCharactersInRegex: NUL is removed by normalisation, so it counts as blank.
const BLANK = /^[\s\u0000]*$/;

/** What an issue is answered with: a code of the error table, the field at fault, and the fix. */
export type IssueProblem = { code: ErrorCode; field?: string; detail?: string };

/**
 * Turns the first valibot issue into the code, field and fix the gateway answers, and a site's client-side
 * checks show (one rule for both). A string that is blank
 * (empty, white space, NUL) counts as missing, so a required field fails as required; any other miss of an
 * email field's pattern is an invalid email.
 */
export function issueToProblem(issue: v.BaseIssue<unknown>): IssueProblem {
  const field = v.getDotPath(issue);
  if (!field) return { code: 'INVALID_JSON' };
  const isEmail = EMAIL_FIELDS.has(field);
  if (
    issue.input === undefined ||
    (typeof issue.input === 'string' && BLANK.test(issue.input) && issue.kind === 'validation')
  )
    return { code: isEmail ? 'EMAIL_REQUIRED' : 'FIELD_REQUIRED', field };
  if (isEmail && issue.type === 'regex') return { code: 'INVALID_EMAIL', field };
  return { code: 'INVALID_FIELD', field, detail: describeIssue(issue) };
}

function describeIssue(issue: v.BaseIssue<unknown>): string {
  switch (issue.type) {
    case 'max_length':
    case 'max_code_points':
      return `must be at most ${issue.requirement} characters`;
    case 'min_length':
      return 'must not be empty';
    case 'picklist':
      return `must be one of ${issue.expected}`;
    case 'integer':
      return 'must be a whole number';
    case 'min_value':
      return `must be at least ${issue.requirement}`;
    default:
      return `must be ${issue.expected ?? 'valid'} (got ${issue.received})`;
  }
}
