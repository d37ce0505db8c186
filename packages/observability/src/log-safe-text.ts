import { scrubPii } from './scrub-pii.ts';

// Airtable's errors as the driver words them: `Airtable 422 INVALID_VALUE_FOR_COLUMN: <Airtable's text>`.
const CRM_TEXT = /(Airtable \d{3} [A-Z][A-Z0-9_]*): [\s\S]*$/;

/**
 * Text about to go into a log line: scrubbed (emails, phones, quoted values), and a CRM's own wording cut
 * off after its status and code. A CRM may quote any value back (a name in "Cannot accept … for Ada"),
 * and a name cannot be recognised in free text, so logs keep the code (enough to alert and count on) and
 * the job keeps the whole text for `ops show`, behind the operator's access to Redis.
 */
export function logSafeText(text: string): string {
  return scrubPii(text).replace(CRM_TEXT, '$1: [CRM text withheld from logs: ops show <id>]');
}
