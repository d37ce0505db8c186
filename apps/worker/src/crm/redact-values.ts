import { scrubPii } from '@forms/observability';

/** What a redacted value is replaced with. */
export const REDACTED = '[redacted]';

/**
 * A CRM's error message with every value of the record removed: each string in `values` (nested objects
 * and arrays are searched) where it stands as a whole, then anything shaped like an email or a phone
 * number (scrubPii, the same masking the logs and the ops CLI apply: a CRM may quote a value it normalised,
 * or another record's). Airtable's 422 messages quote the value they refused, and Postgres' can too; the message
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
  return scrubPii(out);
}

function* collectStrings(value: unknown, depth: number): Generator<string> {
  if (typeof value === 'string') yield value;
  else if (depth < 8 && value !== null && typeof value === 'object')
    for (const item of Object.values(value)) yield* collectStrings(item, depth + 1);
}

function escapeRegExp(text: string): string {
  return text.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
}
