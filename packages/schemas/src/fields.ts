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
 * The addresses we take: every address a mail server takes in its ASCII form (RFC 5321 `Mailbox` with a
 * dot-atom local part and a domain name), as a pattern with no flags, so that a JSON Schema validator (which
 * compiles `pattern` with the `u` flag only) enforces exactly what the gateway does.
 * - Local part: RFC 5322 `atext` (letters, digits and ! # $ % & ' * + - / = ? ^ _ ` { | } ~) with inner dots.
 * - Domain: labels of letters, digits and inner hyphens, 63 characters at most (RFC 1035/5890), so punycode
 *   labels (`xn--exmple-cua`, an internationalised name in ASCII form) pass; the last label is two or more
 *   letters or a punycode label (`xn--p1ai`).
 * Refused, each for a reason: quoted local parts and IP literals (no site's form needs them, and CRMs and mail
 * tools handle them unevenly), non-ASCII addresses (SMTPUTF8: a sender's mail server may not carry them, and the
 * ASCII form of the domain is always there to type), numeric or one-letter top-level labels and single-label
 * domains (no public mail domain has one). Surrounding white space is allowed and trimmed, as for every string.
 */
const ATEXT = "[\\w!#$%&'*+/=?^`{|}~-]";
const LABEL = '[\\da-zA-Z](?:[\\da-zA-Z-]{0,61}[\\da-zA-Z])?';
const TOP_LABEL = '(?:[a-zA-Z]{2,63}|xn--[\\da-zA-Z-]{0,58}[\\da-zA-Z])';
export const EMAIL_PATTERN = new RegExp(`^\\s*${ATEXT}+(?:\\.${ATEXT}+)*@(?:${LABEL}\\.)+${TOP_LABEL}\\s*$`);

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
