import * as v from 'valibot';
import { ApiError, issueToError } from '../errors.ts';

// biome-ignore lint/suspicious/noControlCharactersInRegex: finding NUL is the point.
const NUL = /\u0000/g;
// A high surrogate not followed by a low one, or a low one not preceded by a high one.
const LONE_SURROGATE = /[\ud800-\udbff](?![\udc00-\udfff])|(?<![\ud800-\udbff])[\udc00-\udfff]/g;
// Either of them might be there: almost no form text has a NUL or any surrogate, and then one test is all.
// biome-ignore lint/suspicious/noControlCharactersInRegex: finding NUL is the point.
const MAYBE_UNSTORABLE = /[\u0000\ud800-\udfff]/;

/**
 * Makes a string storable by every CRM driver, then trims it. Postgres refuses NUL in `text` and `\u0000`
 * in `jsonb`, and a lone surrogate cannot be encoded as UTF-8 at all, so a job carrying either failed every
 * attempt. Neither is ever meant in a form: NUL is removed, and a lone surrogate (half an emoji cut by a
 * client) becomes U+FFFD, the replacement character. Other control characters (tab, newline, …) are kept:
 * Postgres, jsonb and Airtable store them, and a message may hold them.
 */
function normalizeText(text: string): string {
  if (!MAYBE_UNSTORABLE.test(text)) return text.trim();
  return text.replace(NUL, '').replace(LONE_SURROGATE, '\ufffd').trim();
}

/**
 * The one normalisation step, on parsed output only (known fields, so its depth is the schema's): every
 * string through normalizeText, and a string left empty dropped, so an optional field never blanks a CRM
 * cell. Required fields cannot end up empty: their schema asks for a character that is neither white space
 * nor NUL.
 */
function normalizeOutput(value: unknown): unknown {
  if (typeof value === 'string') return normalizeText(value);
  if (Array.isArray(value)) return value.map(normalizeOutput);
  if (value === null || typeof value !== 'object') return value;
  const out: Record<string, unknown> = {};
  for (const key in value) {
    const normalized = normalizeOutput((value as Record<string, unknown>)[key]);
    if (normalized !== '') out[key] = normalized;
  }
  return out;
}

/**
 * Validates once, at the edge, the body as sent: the same rules, caps and patterns /openapi.json states,
 * so a client that validates against the document agrees with us. valibot's objects drop unknown fields
 * without looking into them; only then is the output normalised. Handlers see only normalised output.
 */
export function parseOrThrow<S extends v.GenericSchema>(schema: S, body: unknown): v.InferOutput<S> {
  if (body === null || typeof body !== 'object' || Array.isArray(body))
    throw new ApiError('INVALID_JSON', {
      detail: `is ${kindOf(body)}, not an object; send the fields as one {...} object`,
    });
  const result = v.safeParse(schema, body, { abortPipeEarly: true });
  if (!result.success) throw issueToError(result.issues[0]);
  return normalizeOutput(result.output) as v.InferOutput<S>;
}

/** What a parsed body that is not an object is, in words (valid JSON of the wrong shape, not a syntax error). */
function kindOf(body: unknown): string {
  if (Array.isArray(body)) return 'a JSON array';
  if (body === null) return 'JSON null';
  return `a JSON ${typeof body}`;
}
