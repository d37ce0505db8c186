const EMAIL = /[^\s"'<>()[\]{},;:@=]+@[^\s"'<>()[\]{},;:@]+\.[^\s"'<>()[\]{},;:@]+/g;
// Valibot echoes the refused input (`Invalid email: Received "ada@…"`), and so do some CRM errors.
const RECEIVED = /(Received |received |value )"(?:[^"\\]|\\.)*"/g;
// Seven or more digits, with the separators people type: phone numbers, whatever their format.
// Not inside a word: the digits of an id (sub_01JABC0123456789…) are not a phone number.
const PHONE = /(?<![\w+])\+?\d[\d ().-]{5,}\d(?!\w)/g;
// …but not the dates and addresses log lines carry (2026-01-01 10:00:00, 127.0.0.1).
const DATE_OR_IP = /^\d{4}-\d{2}-\d{2}|^\d{1,3}(\.\d{1,3}){3}$/;

/**
 * Masks what could identify a person in free text that is about to be logged or shown: an error message
 * from a CRM, a schema check, a database. It catches emails, phone-like digit runs and quoted refused
 * values; names cannot be recognised in text, so messages we write never include submission values.
 * Dates and IPv4 addresses survive; a long bare number (an epoch in ms) is masked too, which costs little in an error message.
 */
export function scrubPii(text: string): string {
  return text
    .replace(EMAIL, '[email]')
    .replace(RECEIVED, '$1[value]')
    .replace(PHONE, (run) => (DATE_OR_IP.test(run) || run.replace(/\D/g, '').length < 7 ? run : '[phone]'));
}
