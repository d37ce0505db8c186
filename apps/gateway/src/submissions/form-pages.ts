/**
 * The small pages a plain form's post is answered with when the site names no page of its own (no `_next`
 * or `_error` on its allowlist): a thank-you page, and a refusal that names each field at fault in words,
 * with what to do. Plain HTML, no script, no value the person typed (only field names and our messages).
 */
export function thanksPage(message: string): string {
  return page('Thank you', `<h1>Thank you</h1>\n<p>${escapeHtml(message)}</p>`);
}

export function refusedPage(problems: readonly { field?: string | undefined; message: string }[]): string {
  const items = problems
    .map(({ field, message }) =>
      field
        ? `<li><strong>${escapeHtml(fieldInWords(field))}</strong>: ${escapeHtml(message)}</li>`
        : `<li>${escapeHtml(message)}</li>`,
    )
    .join('\n');
  return page(
    'Not sent',
    `<h1>Your form was not sent</h1>\n<ul>\n${items}\n</ul>\n<p>Go back to the form (your browser's Back button keeps what you typed), correct it and send it again.</p>`,
  );
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
