/**
 * The honeypot field a site may add to any submission form, hidden from people (CSS, `tabindex="-1"`,
 * `autocomplete="off"`): people leave it empty, form-filling bots tend to fill a field called "website".
 * A submission with it filled is answered exactly like a success and kept in the spam quarantine instead
 * of the queue (`ops spam`: autofill fills it for people too); an empty one is
 * ignored. No endpoint may have a real field of this name (schemas.test.ts checks).
 */
export const HONEYPOT_FIELD = 'website';
