import * as v from 'valibot';
import { maxCodePoints } from './max-code-points.ts';

/**
 * String caps. Every string a client can send has one, so a single request can neither bloat a job in
 * Redis nor overflow a CRM cell. Chosen to fit real input with room to spare:
 * - EMAIL_MAX 254: the longest address SMTP can carry (RFC 5321 path limit).
 * - SHORT_MAX 200: names, phone numbers, labels, handles, select-style answers.
 * - URL_MAX 2048: links (LinkedIn, CV link, social profile URLs); the de-facto browser URL limit.
 * - LONG_MAX 5000: free text (message, note, questions, calculator summary).
 * Caps count Unicode code points of the string as sent, as JSON Schema's maxLength does (maxCodePoints).
 */
export const EMAIL_MAX = 254;
export const SHORT_MAX = 200;
export const URL_MAX = 2048;
export const LONG_MAX = 5000;

/**
 * The addresses we take, as a pattern with no flags so that a JSON Schema validator (which compiles
 * `pattern` with the `u` flag only) enforces exactly what the gateway does. It is valibot's `email()` rule
 * spelled case by case (its `/iu` flags also let `\w` match U+017F and U+212A): a local part of letters,
 * digits, `_`, `+`, `-` and inner dots; a domain of letter-or-digit labels joined by dots or single hyphens,
 * ending in a label of two or more letters. Valid RFC 5322 forms outside this (quoted local parts,
 * the symbols ! # $ % & ' * / = ? ^ ` { | } ~, IP literals, one-letter or numeric top-level labels, non-ASCII) are refused: they
 * are rare in real forms and several CRMs and mail tools refuse them. Surrounding white space is allowed
 * and trimmed, as for every string.
 */
export const EMAIL_PATTERN = /^\s*[\w+-]+(?:\.[\w+-]+)*@[\da-zA-Z]+(?:[.-][\da-zA-Z]+)*\.[a-zA-Z]{2,}\s*$/;

/** A required text must hold something other than white space (which is trimmed) and NUL (which is removed). */
// biome-ignore lint/suspicious/noControlCharactersInRegex: NUL is the point: it is removed, so it is not content.
export const NOT_BLANK_PATTERN = /[^\s\u0000]/;

export function emailField(description: string) {
  return v.pipe(
    v.string(),
    maxCodePoints(EMAIL_MAX),
    v.regex(EMAIL_PATTERN),
    v.description(
      `${description}. An address such as name@company.com: letters, digits, _ + - and inner dots before the @, ` +
        'and a domain whose last label has two or more letters. Case is ignored.',
    ),
  );
}

export function requiredText(description: string, max = SHORT_MAX) {
  return v.pipe(v.string(), v.minLength(1), maxCodePoints(max), v.regex(NOT_BLANK_PATTERN), v.description(description));
}

export function optionalText(description: string, max = SHORT_MAX) {
  return v.optional(v.pipe(v.string(), maxCodePoints(max), v.description(description)));
}

export function optionalBooleanOrString(description: string) {
  return v.optional(
    v.pipe(v.union([v.boolean(), v.pipe(v.string(), maxCodePoints(SHORT_MAX))]), v.description(description)),
  );
}
