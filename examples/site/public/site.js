// The demo site's only script: plain ES modules, no build. The client comes from /client/ (its built bundle),
// and the gateway's address from /config.js (the static server writes it).
import { checkSubmission } from '/client/checks.js';
import { createFormsClient } from '/client/index.js';
import { API_URL, CHALLENGE } from '/config.js';

const forms = createFormsClient({ baseUrl: API_URL });

// A challenge, when the site turns one on: the provider's widget in every form (its class names the
// provider), which fills the hidden field (cf-turnstile-response, h-captcha-response, g-recaptcha-response)
// that readForm sends with the rest. Tokens are single use: the widget is reset after every answer.
const WIDGET_CLASS = { turnstile: 'cf-turnstile', hcaptcha: 'h-captcha', recaptcha: 'g-recaptcha' };
const WIDGET_API = { turnstile: 'turnstile', hcaptcha: 'hcaptcha', recaptcha: 'grecaptcha' };
if (CHALLENGE) {
  for (const form of document.querySelectorAll('form[data-kind]')) {
    const widget = Object.assign(document.createElement('div'), { className: WIDGET_CLASS[CHALLENGE.provider] });
    widget.dataset.sitekey = CHALLENGE.siteKey;
    form.querySelector('button').before(widget);
  }
  document.head.append(Object.assign(document.createElement('script'), { src: CHALLENGE.scriptUrl, async: true }));
}

const send = {
  contact: (body) => forms.submitContact(body),
  'cpa-signup': (body) => forms.signup('cpa', body),
  'partner-webinar': (body) => forms.registerForWebinar(body),
  'careers-apply': (body) => forms.applyForJob(body),
};

for (const form of document.querySelectorAll('form[data-kind]')) {
  form.addEventListener('submit', async (event) => {
    event.preventDefault();
    const kind = form.dataset.kind;
    const button = form.querySelector('button');
    const status = form.querySelector('.status');
    clearErrors(form);
    const body = readForm(form);
    // The same rules as the gateway, before the network: a 6 MiB CV is refused before a byte is read.
    const problem = checkSubmission(kind, body);
    if (problem) return showError(form, problem);

    button.disabled = true;
    setStatus(status, 'Sending…', '');
    const result = await send[kind](body);
    button.disabled = false;
    if (CHALLENGE) window[WIDGET_API[CHALLENGE.provider]]?.reset();
    if (result.ok) {
      setStatus(status, result.data.message, 'ok');
      form.reset();
    } else if (result.error.kind === 'rejected') {
      showError(form, result.error);
    } else {
      setStatus(status, result.error.message, 'error');
    }
  });
}

/**
 * The form's fields as the API wants them: blank fields left out, a chosen file as a File; `_next` (where
 * the browser goes when it posts the form itself, JavaScript off) is no field of the submission.
 */
function readForm(form) {
  const body = {};
  for (const [name, value] of new FormData(form)) {
    if (name.startsWith('_')) continue;
    if (typeof value === 'string' ? value.trim() !== '' : value.name !== '') body[name] = value;
  }
  return body;
}

/**
 * Puts the message beside the field it names (`cvFile.data` belongs to the `cvFile` input), else in the
 * status line; either way the status line ends ("Not sent"), never left at "Sending…".
 */
function showError(form, { field, message }) {
  const name = field?.split('.')[0];
  const slot = name && form.querySelector(`[data-error-for="${name}"]`);
  const status = form.querySelector('.status');
  if (!slot) return setStatus(status, message, 'error');
  setStatus(status, 'Not sent: see the field marked.', 'error');
  slot.textContent = message;
  const input = form.elements.namedItem(name);
  input?.setAttribute('aria-invalid', 'true');
  input?.focus();
}

function clearErrors(form) {
  for (const slot of form.querySelectorAll('[data-error-for]')) slot.textContent = '';
  for (const input of form.querySelectorAll('[aria-invalid]')) input.removeAttribute('aria-invalid');
  setStatus(form.querySelector('.status'), '', '');
}

function setStatus(status, text, state) {
  status.textContent = text;
  status.className = `status ${state}`;
}

async function showLatestVideo() {
  const card = document.getElementById('latest-video');
  const result = await forms.latestVideo({ deadlineMs: 5_000 });
  if (!result.ok) {
    card.textContent = 'No video to show right now.';
    return;
  }
  const { url, title, thumbnail } = result.data;
  const link = Object.assign(document.createElement('a'), { href: url });
  link.append(Object.assign(document.createElement('img'), { src: thumbnail, alt: '' }), title);
  card.replaceChildren(link);
  card.dataset.videoId = result.data.videoId;
}

showLatestVideo();
