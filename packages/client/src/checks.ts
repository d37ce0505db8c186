import {
  CV_CONTENT_TYPES,
  CV_MAX_BYTES,
  ERROR_CODES,
  type ErrorCode,
  issueToProblem,
  SUBMISSION_ENDPOINTS,
  type SubmissionKind,
} from '@forms/schemas';
import * as v from 'valibot';

/** A problem a form can show beside its field; the same code, field and message the gateway would answer. */
export type FieldProblem = { code: ErrorCode; field: string; message: string };

/**
 * `@forms/client/checks`: the gateway's own rules, run in the page so a form can answer before the network.
 * It bundles valibot and the request schemas (that is the point: the same rules), so it is a separate
 * import and the core stays small. The work-domain rule stays on the server: its domain lists (~14k free-mail,
 * ~120k disposable) are far too big for a page.
 */
export function checkSubmission(kind: SubmissionKind, body: Record<string, unknown>): FieldProblem | undefined {
  const { cvFile, ...rest } = body;
  const schema = SUBMISSION_ENDPOINTS.find((e) => e.kind === kind)!.request;
  const result = v.safeParse(schema, normalize(cvFile instanceof Blob ? rest : body), { abortPipeEarly: true });
  if (!result.success) return toProblem(result.issues[0]);
  return cvFile instanceof Blob ? checkCv(cvFile) : undefined;
}

/** A CV as careers-apply takes it: PDF, DOC or DOCX, not empty, at most 5 MiB. Checked before it is read. */
export function checkCv(file: Blob): FieldProblem | undefined {
  if (!(CV_CONTENT_TYPES as readonly string[]).includes(file.type)) {
    const field = 'cvFile.contentType';
    const detail = `must be one of ${CV_CONTENT_TYPES.join(', ')} (a PDF, DOC or DOCX file)`;
    return { code: 'INVALID_FIELD', field, message: ERROR_CODES.INVALID_FIELD.message(field, detail) };
  }
  if (file.size > CV_MAX_BYTES) return problem('CV_TOO_LARGE', 'cvFile.data');
  if (file.size === 0) return problem('CV_CONTENT_MISMATCH', 'cvFile.data', 'are empty');
  return undefined;
}

function problem(code: ErrorCode, field: string, detail?: string): FieldProblem {
  return { code, field, message: ERROR_CODES[code].message(field, detail) };
}

// The gateway's own rule for turning an issue into a code (issueToProblem). Unlike the gateway, strings are
// trimmed first: a form's field with only spaces should read as empty, before it is sent.
function toProblem(issue: v.BaseIssue<unknown>): FieldProblem {
  const { code, field = '', detail } = issueToProblem(issue);
  return problem(code, field, detail);
}

function normalize(value: unknown): unknown {
  if (typeof value === 'string') return value.trim();
  if (value === null || typeof value !== 'object' || Array.isArray(value)) return value;
  const out: Record<string, unknown> = {};
  for (const [key, item] of Object.entries(value)) {
    const normalized = normalize(item);
    if (normalized !== '') out[key] = normalized;
  }
  return out;
}
