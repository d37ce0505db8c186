import { BODY_LIMITS } from '@forms/schemas';

const QUOTE = 0x22;
const BACKSLASH = 0x5c;
const OPEN_ARRAY = 0x5b;
const OPEN_OBJECT = 0x7b;
const CLOSE_ARRAY = 0x5d;
const CLOSE_OBJECT = 0x7d;
const COMMA = 0x2c;

/** What is wrong with a JSON text's shape, in the words of INVALID_JSON's detail; undefined when nothing. */
export type ShapeFault = string | undefined;

/**
 * Scans a JSON text, without parsing it, for the two limits a body is held to before JSON.parse sees it:
 * depth (`BODY_LIMITS.depth`) and members and items in all (`BODY_LIMITS.members`). It stops at the first
 * character past either, so a 6 MB `[[[…]]]` is refused after 33 characters instead of after a second of
 * JSON.parse. Strings are skipped with `indexOf` (a CV's 7 MiB of base64 costs about a millisecond), and
 * what is inside them is not structure. Only the shape is judged: a text that is not JSON at all is left
 * for JSON.parse to refuse, so for valid JSON the counts are exact.
 */
export function jsonShapeFault(text: string, limits = BODY_LIMITS): ShapeFault {
  let depth = 0;
  let members = 0;
  // Just after `[` or `{`: the next significant character says whether the container has a first member.
  let opened = false;
  for (let i = 0; i < text.length; i++) {
    const c = text.charCodeAt(i);
    if (c === 0x20 || c === 0x0a || c === 0x0d || c === 0x09) continue;
    if (opened) {
      opened = false;
      if (c !== CLOSE_ARRAY && c !== CLOSE_OBJECT && ++members > limits.members) return tooMany(limits);
    }
    if (c === QUOTE) {
      i = closingQuote(text, i);
      if (i < 0) return undefined; // unterminated: JSON.parse says so
    } else if (c === OPEN_ARRAY || c === OPEN_OBJECT) {
      if (++depth > limits.depth) return `is nested more than ${limits.depth} levels deep; send a flat JSON object`;
      opened = true;
    } else if (c === CLOSE_ARRAY || c === CLOSE_OBJECT) {
      depth--;
    } else if (c === COMMA && depth > 0 && ++members > limits.members) {
      return tooMany(limits);
    }
  }
  return undefined;
}

function tooMany(limits: typeof BODY_LIMITS): string {
  return `holds more than ${limits.members} members and items; send a flat JSON object with the documented fields`;
}

/** The index of the quote that closes the string opening at `open`, or -1. */
function closingQuote(text: string, open: number): number {
  let from = open + 1;
  for (;;) {
    const quote = text.indexOf('"', from);
    if (quote < 0) return -1;
    let backslashes = 0;
    for (let j = quote - 1; j > open && text.charCodeAt(j) === BACKSLASH; j--) backslashes++;
    if (backslashes % 2 === 0) return quote;
    from = quote + 1;
  }
}
