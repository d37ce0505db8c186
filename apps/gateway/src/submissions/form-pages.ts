import type { ErrorCode } from '@forms/schemas';

/**
 * The small pages a plain form's post is answered with when the site names no page of its own (no `_next`
 * or `_error` on its allowlist): a thank-you page, and a refusal that names each field at fault in words,
 * with what to do in the person's words. Plain HTML, no script, no value the person typed (only field names
 * and our messages).
 */
export function thanksPage(message: string): string {
  return page('Thank you', `<h1>Thank you</h1>\n<p>${escapeHtml(message)}</p>`);
}

/**
 * A plain form's post that a `required` challenge could not check (JavaScript off: no widget ran): it was
 * received and waits for a person's review (plain-form-challenge.ts), and the person is told so, with the
 * address to write to when it is urgent.
 */
export function uncheckedPage(contactEmail: string): string {
  const mail = escapeHtml(contactEmail);
  return page(
    'Received: waiting for review',
    `<h1>Received: waiting for review</h1>\n<p>Thank you. This form checks that it was sent by a person with a small script, which did not run in your browser (JavaScript is off or blocked), so your form waits for someone to look at it before it reaches the team.</p>\n<p>To be sure it arrives at once, turn JavaScript on and send the form again, or write to <a href="mailto:${mail}">${mail}</a>.</p>`,
  );
}

export function refusedPage(problems: readonly Problem[]): string {
  const items = problems.map((problem) => `<li>${escapeHtml(inWords(problem))}</li>`).join('\n');
  // A field at fault is the person's to correct; anything else (a busy moment, the limit) is only to resend.
  const todo = problems.some((p) => p.field) ? 'correct it and send it again' : 'and send it again';
  return page(
    'Not sent',
    `<h1>Your form was not sent</h1>\n<ul>\n${items}\n</ul>\n<p>Go back to the form (your browser's Back button keeps what you typed), ${todo}.</p>`,
  );
}

/** A refusal as the page gets it: the code, the field at fault (its form name) and the API's own message. */
type Problem = { code: ErrorCode; field?: string | undefined; message: string };

/**
 * What a person reads for each code, in the form's terms: the field by its label ("Role", not `"role"`),
 * and what to do; never a field the form may not have (the API's CV_TOO_LARGE names a `cv` link field that
 * a form with a file input lacks). A code not listed (one a browser's post does not meet) keeps the API's
 * message with the field's name in words. The JSON answers keep the API's messages (ERROR_CODES).
 */
const FOR_PEOPLE: Partial<Record<ErrorCode, (label: string) => string>> = {
  EMAIL_REQUIRED: (label) => `Please fill in ${label}.`,
  FIELD_REQUIRED: (label) => `Please fill in ${label}.`,
  INVALID_EMAIL: (label) => `Please check ${label}: it should be an email address, such as name@company.com.`,
  WORK_EMAIL_REQUIRED: (label) =>
    `Please use your work email address in ${label}: addresses from personal or throwaway email services are not accepted on this form.`,
  CV_TOO_LARGE: () =>
    'The CV file is larger than 5 MiB. Please choose a smaller file (compress it, or save it as a PDF).',
  CV_CONTENT_MISMATCH: () =>
    'The CV file is not a PDF, DOC or DOCX file. Please choose your CV in one of those formats.',
  CV_INVALID_BASE64: () => 'The CV file could not be read. Please choose it again.',
  PAYLOAD_TOO_LARGE: () => 'What you typed is longer than this form takes. Please shorten the longest fields.',
  BODY_TIMEOUT: () => 'The form took too long to arrive (a slow connection?). Please send it again.',
  INVALID_FORM: () => 'The form could not be read. Please send it again.',
  RATE_LIMITED: () =>
    'Too many forms were sent from your connection just now. Please wait a minute, then send it again.',
  QUEUE_UNAVAILABLE: () => 'We could not take your form just now. Please wait a moment, then send it again.',
  GATEWAY_NOT_READY: () => 'We could not take your form just now. Please wait a moment, then send it again.',
  CV_UPLOADS_BUSY: () => 'We are receiving many applications at this moment. Please wait a minute, then send it again.',
};

function inWords({ code, field, message }: Problem): string {
  const label = field ? fieldInWords(field) : 'a field';
  const words = FOR_PEOPLE[code];
  if (words) return words(label);
  if (!field) return message;
  // `"role" must be at most 200 characters.` → `Please check Role: it must be at most 200 characters.`
  const quoted = `"${field}" `;
  return message.startsWith(quoted)
    ? `Please check ${label}: it ${message.slice(quoted.length)}`
    : `${label}: ${message}`;
}

const WORDS: Record<string, string> = { cvFile: 'CV file', cv: 'CV link', linkedin: 'LinkedIn' };

/** `workEmail` → "Work email", `cvFile.data` → "CV file": the form's field as a person reads it. */
function fieldInWords(field: string): string {
  const name = field.split('.')[0]!;
  if (WORDS[name]) return WORDS[name];
  const words = name
    .replace(/[_-]+/g, ' ')
    .replace(/([a-z0-9])([A-Z])/g, '$1 $2')
    .trim()
    .toLowerCase();
  return words.charAt(0).toUpperCase() + words.slice(1);
}

function page(title: string, main: string): string {
  return `<!doctype html>
<html lang="en">
<head><meta charset="utf-8"><meta name="viewport" content="width=device-width, initial-scale=1"><title>${title}</title></head>
<body>
${main}
</body>
</html>
`;
}

function escapeHtml(text: string): string {
  return text.replace(/[&<>"']/g, (c) => `&#${c.charCodeAt(0)};`);
}
