// DATA ({endpoint, contactEmail}) is declared by widget-page.ts ahead of this script. The API is the one
// validator (the form is `novalidate`): its field-named 400 is shown beside the field it names.
const form = document.getElementById('contact-form');
const statusBox = document.getElementById('status');
function show(kind, text) {
  statusBox.className = `status ${kind}`;
  statusBox.textContent = text;
}
function clearErrors() {
  for (const el of form.querySelectorAll('.field-error')) el.textContent = '';
  for (const el of form.querySelectorAll('[aria-invalid]')) el.removeAttribute('aria-invalid');
}
document.addEventListener('tool-input', (event) => {
  if (event.detail?.userType) form.elements.namedItem('userType').value = event.detail.userType;
});
form.addEventListener('submit', async (event) => {
  event.preventDefault();
  clearErrors();
  const body = {};
  for (const el of form.elements) if (el.name && el.value.trim()) body[el.name] = el.value.trim();
  const button = form.querySelector('button[type=submit]');
  button.disabled = true;
  show('', 'Sending…');
  try {
    const res = await fetch(DATA.endpoint, {
      method: 'POST',
      // Filled in an agent's host, where no challenge widget runs: declared as an agent's (docs/site-forms.md#challenges).
      headers: { 'Content-Type': 'application/json', Accept: 'application/json', 'Forms-Agent': 'mcp-contact-form' },
      body: JSON.stringify(body),
    });
    const data = await res.json().catch(() => ({}));
    if (res.ok && data.success) {
      show('ok', data.message);
      form.reset();
      return;
    }
    const field = data.field && form.elements.namedItem(data.field);
    if (field) {
      field.setAttribute('aria-invalid', 'true');
      document.getElementById(`error-${data.field}`).textContent = data.message;
      field.focus();
    }
    show('error', data.message || 'The message could not be sent; please try again.');
  } catch {
    show('error', `The message could not be sent (network error); please try again, or email ${DATA.contactEmail}.`);
  } finally {
    button.disabled = false;
  }
});
