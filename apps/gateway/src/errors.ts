import * as v from 'valibot';
import { ERROR_CODES, type ErrorCode } from '@forms/schemas';

/** A failure the caller can act on; the error handler turns it into the answer. */
export class ApiError extends Error {
  readonly code: ErrorCode;
  readonly status: number;
  readonly field: string | undefined;
  readonly headers: Record<string, string>;

  constructor(code: ErrorCode, options: { field?: string; detail?: string; headers?: Record<string, string> } = {}) {
    const entry = ERROR_CODES[code];
    super(entry.message(options.field, options.detail));
    this.code = code;
    this.status = entry.status;
    this.field = options.field;
    this.headers = options.headers ?? {};
  }
}

export type ErrorStyle = 'structured' | 'simple';

export function errorBody(error: ApiError, style: ErrorStyle, documentation: string) {
  if (style === 'simple') return { error: error.code, message: error.message };
  return {
    error: ERROR_CODES[error.code].error,
    code: error.code,
    message: error.message,
    documentation,
    ...(error.field ? { field: error.field } : {}),
  };
}

const EMAIL_FIELDS = new Set(['email', 'workEmail']);

/** Turns the first valibot issue into the error that names the field and the fix. */
export function issueToError(issue: v.BaseIssue<unknown>): ApiError {
  const field = issue.path?.map((item) => String(item.key)).join('.');
  if (!field) return new ApiError('INVALID_JSON');
  if (issue.input === undefined) return new ApiError(EMAIL_FIELDS.has(field) ? 'EMAIL_REQUIRED' : 'FIELD_REQUIRED', { field });
  if (issue.type === 'email') return new ApiError('INVALID_EMAIL', { field });
  return new ApiError('INVALID_FIELD', { field, detail: describeIssue(issue) });
}

function describeIssue(issue: v.BaseIssue<unknown>): string {
  switch (issue.type) {
    case 'max_length':
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
