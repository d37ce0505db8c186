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
  return scrubPii(message, values);
}
