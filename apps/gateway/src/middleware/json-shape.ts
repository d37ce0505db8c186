import { BODY_LIMITS } from '@forms/schemas';

const QUOTE = 0x22;
const BACKSLASH = 0x5c;
const OPEN_ARRAY = 0x5b;
const OPEN_OBJECT = 0x7b;
const CLOSE_ARRAY = 0x5d;
const CLOSE_OBJECT = 0x7d;
const COMMA = 0x2c;
const NONE = Number.MAX_SAFE_INTEGER;

/** What is wrong with a JSON text's shape, as INVALID_JSON's detail; undefined while nothing is. */
export type ShapeFault = string | undefined;

/**
 * A scanner of a JSON text's shape, fed the body's bytes as they arrive, for the two limits a body is held
 * to before JSON.parse sees it: depth (`BODY_LIMITS.depth`) and members and items in all, at any depth
 * (`BODY_LIMITS.members`). It answers a fault at the first byte past either, so a 6 MB `[[[…]]]` is refused
 * from its first chunk, before the rest is even read, instead of after a second of JSON.parse with the event
 * loop stalled for every other request. Bytes, not characters: every byte of a multi-byte UTF-8 sequence
 * is 0x80 or above, so none is taken for structure. Inside strings it jumps with `indexOf` (a CV's 7 MiB
 * of base64 costs about a millisecond), and what is inside them is not structure. Only the shape is judged:
 * a text that is not JSON is left for JSON.parse to refuse, so for valid JSON the counts are exact.
 */
export function createShapeScanner(limits: { depth: number; members: number } = BODY_LIMITS) {
  let depth = 0;
  let members = 0;
  // Just after `[` or `{`: the next significant byte says whether the container has a first member.
  let opened = false;
  let inString = false;
  let escaped = false;

  return function scan(chunk: Uint8Array): ShapeFault {
    // The next quote and backslash at or after `i` in this chunk (NONE: no more), found once each.
    let quote = -1;
    let backslash = -1;
    for (let i = 0; i < chunk.length; ) {
      if (inString) {
        if (escaped) {
          escaped = false;
          i++;
          continue;
        }
        if (quote < i) quote = indexOr(chunk, QUOTE, i);
        if (backslash < i) backslash = indexOr(chunk, BACKSLASH, i);
        if (backslash < quote) {
          escaped = true; // the byte after it, maybe in the next chunk, is not a closing quote
          i = backslash + 1;
        } else if (quote === NONE) {
          break; // the string goes on in the next chunk
        } else {
          inString = false;
          i = quote + 1;
        }
        continue;
      }
      const c = chunk[i++]!;
      if (c === 0x20 || c === 0x0a || c === 0x0d || c === 0x09) continue;
      if (opened) {
        opened = false;
        if (c !== CLOSE_ARRAY && c !== CLOSE_OBJECT && ++members > limits.members) return tooWide(limits);
      }
      if (c === QUOTE) inString = true;
      else if (c === OPEN_ARRAY || c === OPEN_OBJECT) {
        if (++depth > limits.depth) return tooDeep(limits);
        opened = true;
      } else if (c === CLOSE_ARRAY || c === CLOSE_OBJECT) depth--;
      else if (c === COMMA && depth > 0 && ++members > limits.members) return tooWide(limits);
    }
    return undefined;
  };
}

// The faults' words are made only when one is found, not for every body scanned.
function tooDeep(limits: { depth: number }): string {
  return `is nested more than ${limits.depth} levels deep; send a flat JSON object`;
}
function tooWide(limits: { members: number }): string {
  return `holds more than ${limits.members} members and items; send a flat JSON object with the documented fields`;
}

function indexOr(chunk: Uint8Array, byte: number, from: number): number {
  const at = chunk.indexOf(byte, from);
  return at < 0 ? NONE : at;
}
