import { PERSONAL_FIELDS } from './personal-fields.ts';
import { scrubPii } from './scrub-pii.ts';

function maskValue(key: string, value: string): string {
  if (key === 'email' || key === 'workEmail') {
    const at = value.indexOf('@');
    return at > 0 ? `${value[0]}***@${value.slice(at + 1)}` : '***';
  }
  if (key === 'phoneNumber' || key === 'whatsappNumber') {
    const digits = value.replace(/\D/g, '');
    return `***${digits.slice(-2)}`;
  }
  if (key === 'filename') {
    // A CV's original name is often its owner's ("Grace_Hopper_CV.pdf"): only the extension is kept.
    const dot = value.lastIndexOf('.');
    return dot > 0 && value.length - dot <= 6 ? `***${value.slice(dot)}` : '***';
  }
  return value.length > 0 ? `${value[0]}***` : value;
}

/** Masked whole besides the personal fields: a staged CV's original file name. */
const MASKED = new Set<string>([...PERSONAL_FIELDS, 'filename']);

/**
 * A copy of a submission's data with personal fields masked (`a***@acme.io`, `***42`, `A***`, `***.pdf`),
 * for `ops show` and the admin status: enough to recognise a record on the phone, not to copy it out. Every
 * other string is free text as far as masking knows (a note, a message, a question: "call me on +44 …"),
 * and is scrubbed of emails, phone numbers and quoted values, as log lines are.
 */
export function maskPii(data: unknown): unknown {
  if (Array.isArray(data)) return data.map(maskPii);
  if (typeof data === 'string') return scrubPii(data);
  if (typeof data !== 'object' || data === null) return data;
  return Object.fromEntries(
    Object.entries(data).map(([key, value]) => [
      key,
      typeof value === 'string' && MASKED.has(key) ? maskValue(key, value) : maskPii(value),
    ]),
  );
}
