import * as v from 'valibot';
import { ApiError, issueToError } from './errors.ts';

/**
 * Trims every string and drops the ones left empty, so "" and "  " count as missing: a required field
 * then fails as required, and an optional one is simply not written (an update never blanks a CRM cell).
 */
export function normalizeBody(body: unknown): unknown {
  if (typeof body === 'string') return body.trim();
  if (Array.isArray(body)) return body.map(normalizeBody);
  if (body === null || typeof body !== 'object') return body;
  const out: Record<string, unknown> = {};
  for (const [key, value] of Object.entries(body)) {
    const normalized = normalizeBody(value);
    if (normalized !== '') out[key] = normalized;
  }
  return out;
}

/** Validates once, at the edge. Handlers see only parsed output; unknown fields are dropped here. */
export function parseOrThrow<S extends v.GenericSchema>(schema: S, body: unknown): v.InferOutput<S> {
  if (body === null || typeof body !== 'object' || Array.isArray(body)) throw new ApiError('INVALID_JSON');
  const result = v.safeParse(schema, normalizeBody(body), { abortPipeEarly: true });
  if (!result.success) throw issueToError(result.issues[0]);
  return result.output;
}
