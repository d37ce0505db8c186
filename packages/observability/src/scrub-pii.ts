import { PERSONAL_FIELDS } from './personal-fields.ts';

// An address as people write them: a local part, `@`, dot-joined labels ending in one with a letter (`.io`,
// `.рф`, even `.c0m`). Not a package path (`.pnpm/ioredis@5.4.1/…`, whose last label is all digits): its `@`
// read as an address turned every stack frame of a cluster error into `([email]:661:38)`. A label
// followed by more of the path (`pkg@1.0.0-next.ab/…`) is not an address's end either.
const EMAIL =
  /(?<![\p{L}\p{N}._%+-])[\p{L}\p{N}._%+-]+@(?:[\p{L}\p{N}-]+\.)+(?=[\p{L}\p{N}-]*\p{L})[\p{L}\p{N}-]{2,}(?!\.?[\p{L}\p{N}_/-])/gu;
// Valibot echoes the refused input (`Invalid email: Received "ada@…"`), and so do some CRM errors.
const RECEIVED = /(Received |received |value )"(?:[^"\\]|\\.)*"/g;
// A personal field quoted with its value, as a job's JSON shows it inside an error (`"email":"ada@…"`).
const PERSONAL_JSON = new RegExp(`"(${PERSONAL_FIELDS.join('|')})"\\s*:\\s*"(?:[^"\\\\]|\\\\.)*"`, 'g');
// Postgres' detail of a key violation quotes the key's values: `Key (email)=(ada@acme.io) already exists.`
const KEY_VALUES = /\bKey \(([^)]*)\)=\((?:[^()]|\([^()]*\))*\)/g;
// Diagnostic numbers that hold seven or more digits with what phone numbers are typed with (spaces, dots,
// hyphens), kept whole before phones are looked for: an IPv4 address with its port (`MOVED 12182
// 127.0.0.1:46309` once read as one phone number), a date and time, a UUID, a version after `@` or `v`,
// a source position (`index.js:661:38`).
const DIAGNOSTIC =
  /\d{1,3}(?:\.\d{1,3}){3}(?::\d{1,5})?|\d{4}-\d{2}-\d{2}(?:[T ]\d{2}:\d{2}(?::\d{2}(?:\.\d+)?)?(?:Z|[+-]\d{2}:?\d{2})?)?|\b[\da-f]{8}-[\da-f]{4}-[\da-f]{4}-[\da-f]{4}-[\da-f]{12}\b|(?<=[@v])\d+(?:\.\d+)+|\.[cm]?[jt]sx?:\d+(?::\d+)?/gi;
// Seven to fifteen digits (E.164's most), with the separators people type: phone numbers, whatever their
// format. Not inside a word: the digits of an id (sub_01JABC0123456789…) are not a phone number.
const PHONE = /(?<![\w+])\+?\d[\d ().-]{5,}\d(?!\w)/g;
// The placeholder a kept diagnostic stands behind while phones are looked for: a NUL cannot be typed in.
// biome-ignore lint/suspicious/noControlCharactersInRegex: NUL is the point: no text we scrub carries one.
const KEPT = /\u0000(\d+)\u0000/g;

/** Values shorter than this are not looked for: one letter would take words apart. */
const MIN_VALUE = 2;

/**
 * Masks what could identify a person in free text that is about to be logged or shown: an error message
 * from a CRM, a schema check, a database, a Redis client. When the submission is known (`personal`: its
 * data, or any object or list of its values), each of its string values is removed where it stands whole,
 * in any case (`[redacted]`): exactly what the person sent, whatever its shape. Then what is shaped like a
 * person's data: emails, phone numbers, quoted refused values, a personal field's value in JSON, the values
 * of a Postgres key. Names cannot be recognised in text without the submission, so messages we write
 * never include submission values. What operators need stays as it was: addresses and ports, slot
 * numbers, dates, ids, stack frames and package paths (test/integration/log-scrubber-mangles-ports-and-package-paths).
 */
export function scrubPii(text: string, personal?: unknown): string {
  let out = text;
  for (const value of personalValues(personal)) {
    // Only where the value stands whole: redacting "mid" must not turn "middle" into "[redacted]dle".
    out = out.replace(new RegExp(`(?<![\\p{L}\\p{N}_])${escapeRegExp(value)}(?![\\p{L}\\p{N}_])`, 'giu'), REDACTED);
  }
  out = out
    .replace(EMAIL, '[email]')
    .replace(RECEIVED, '$1[value]')
    .replace(PERSONAL_JSON, '"$1":"[redacted]"')
    .replace(KEY_VALUES, 'Key ($1)=([redacted])');
  const kept: string[] = [];
  return out
    .replace(DIAGNOSTIC, (token) => `\u0000${kept.push(token) - 1}\u0000`)
    .replace(PHONE, (run) => {
      const digits = run.replace(/\D/g, '').length;
      return digits < 7 || digits > 15 ? run : '[phone]';
    })
    .replace(KEPT, (_, i: string) => kept[Number(i)]!);
}

/** What a value of the submission is replaced with. */
const REDACTED = '[redacted]';

/** Every string in `personal` (nested objects and lists searched), longest first so a longer value goes whole. */
function personalValues(personal: unknown): string[] {
  const found = new Set<string>();
  const collect = (value: unknown, depth: number) => {
    if (typeof value === 'string') {
      if (value.trim().length >= MIN_VALUE) found.add(value.trim());
    } else if (depth < 8 && value !== null && typeof value === 'object')
      for (const item of Object.values(value)) collect(item, depth + 1);
  };
  collect(personal, 0);
  return [...found].sort((a, b) => b.length - a.length);
}

function escapeRegExp(text: string): string {
  return text.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
}
