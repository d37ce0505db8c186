import * as v from 'valibot';

/**
 * String caps. Every string a client can send has one, so a single request can neither bloat a job in
 * Redis nor overflow a CRM cell. Chosen to fit real input with room to spare:
 * - EMAIL_MAX 254: the longest address SMTP can carry (RFC 5321 path limit).
 * - SHORT_MAX 200: names, phone numbers, labels, handles, select-style answers.
 * - URL_MAX 2048: links (LinkedIn, CV link, social profile URLs); the de-facto browser URL limit.
 * - LONG_MAX 5000: free text (message, note, questions, calculator summary).
 */
export const EMAIL_MAX = 254;
export const SHORT_MAX = 200;
export const URL_MAX = 2048;
export const LONG_MAX = 5000;

export function emailField(description: string) {
  return v.pipe(v.string(), v.maxLength(EMAIL_MAX), v.email(), v.description(description));
}

export function requiredText(description: string, max = SHORT_MAX) {
  return v.pipe(v.string(), v.minLength(1), v.maxLength(max), v.description(description));
}

export function optionalText(description: string, max = SHORT_MAX) {
  return v.optional(v.pipe(v.string(), v.maxLength(max), v.description(description)));
}

export function optionalBooleanOrString(description: string) {
  return v.optional(
    v.pipe(v.union([v.boolean(), v.pipe(v.string(), v.maxLength(SHORT_MAX))]), v.description(description)),
  );
}
