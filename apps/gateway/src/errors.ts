import { ERROR_CODES, type ErrorCode, issueToProblem } from '@forms/schemas';
import type * as v from 'valibot';

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
  const field = error.field ? { field: error.field } : {};
  if (style === 'simple') return { error: error.code, message: error.message, ...field };
  return {
    error: ERROR_CODES[error.code].error,
    code: error.code,
    message: error.message,
    documentation,
    ...field,
  };
}

/** Turns the first valibot issue into the error that names the field and the fix (one rule: issueToProblem). */
export function issueToError(issue: v.BaseIssue<unknown>): ApiError {
  const { code, field, detail } = issueToProblem(issue);
  return new ApiError(code, { ...(field ? { field } : {}), ...(detail ? { detail } : {}) });
}
