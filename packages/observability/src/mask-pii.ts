import { PERSONAL_FIELDS } from './personal-fields.ts';

const PERSONAL = new Set<string>(PERSONAL_FIELDS);

function maskValue(key: string, value: string): string {
  if (key === 'email' || key === 'workEmail') {
    const at = value.indexOf('@');
    return at > 0 ? `${value[0]}***@${value.slice(at + 1)}` : '***';
  }
  if (key === 'phoneNumber' || key === 'whatsappNumber') {
    const digits = value.replace(/\D/g, '');
    return `***${digits.slice(-2)}`;
  }
  return value.length > 0 ? `${value[0]}***` : value;
}

/**
 * A copy of a submission's data with personal fields masked (`a***@acme.io`, `***42`, `A***`), for
 * `ops show` and the admin status: enough to recognise a record on the phone, not to copy it out.
 */
export function maskPii(data: unknown): unknown {
  if (Array.isArray(data)) return data.map(maskPii);
  if (typeof data !== 'object' || data === null) return data;
  return Object.fromEntries(
    Object.entries(data).map(([key, value]) => [
      key,
      PERSONAL.has(key) && typeof value === 'string' ? maskValue(key, value) : maskPii(value),
    ]),
  );
}
