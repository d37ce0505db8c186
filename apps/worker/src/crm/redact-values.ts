/** What a redacted value is replaced with. */
export const REDACTED = '[redacted]';

// Shapes of personal data a CRM may quote even when it is not one of the values we sent (a value it
// normalised, or another record's): email addresses, and phone-like runs of seven or more digits.
const EMAIL = /[^\s"'<>()[\]{},;:]+@[^\s"'<>()[\]{},;:]+\.[A-Za-z]{2,}/g;
const PHONE = /\+?\d[\d ().-]{5,}\d/g;

/**
 * A CRM's error message with every value of the record removed: each string in `values` (nested objects
 * and arrays are searched) where it stands as a whole, then anything shaped like an email or a phone
 * number. Airtable's 422 messages quote the value they refused, and Postgres' can too; the message
 * becomes a log line and the job's failedReason, which ops read and which Redis keeps until removed, so
 * it must say what went wrong (the error type, the field) without the data. Used where those errors are
 * made: `apiError` in the Airtable client, and the Postgres driver.
 */
export function redactValues(message: string, values: unknown): string {
  const strings = [...collectStrings(values, 0)].filter((s) => s.length >= 2).sort((a, b) => b.length - a.length);
  let out = message;
  for (const value of strings) {
    // Only where the value stands whole: redacting "mid" must not turn "middle" into "[redacted]dle".
    const pattern = new RegExp(`(?<![\\p{L}\\p{N}_])${escapeRegExp(value)}(?![\\p{L}\\p{N}_])`, 'gu');
    out = out.replace(pattern, REDACTED);
  }
  return out.replace(EMAIL, REDACTED).replace(PHONE, (run) => (looksLikePhone(run) ? REDACTED : run));
}

/** Seven or more digits, and not a date (`2026-01-01`), which error messages quote harmlessly. */
function looksLikePhone(run: string): boolean {
  return (run.match(/\d/g)?.length ?? 0) >= 7 && !/^\d{4}-\d{2}-\d{2}$/.test(run.trim());
}

function* collectStrings(value: unknown, depth: number): Generator<string> {
  if (typeof value === 'string') yield value;
  else if (depth < 8 && value !== null && typeof value === 'object')
    for (const item of Object.values(value)) yield* collectStrings(item, depth + 1);
}

function escapeRegExp(text: string): string {
  return text.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
}
