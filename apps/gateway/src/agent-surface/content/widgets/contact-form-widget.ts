import type { SiteContent } from '../content.ts';
import { endpointUrl } from '../content.ts';
import { escapeHtml as e } from '../html.ts';
import { type WidgetPage, widgetPage } from './widget-page.ts';

/** The fields the form sends; names are ContactRequest's. */
export const CONTACT_FORM_FIELDS = [
  { name: 'name', label: 'Name', required: false },
  { name: 'email', label: 'Email', required: true },
  { name: 'userType', label: 'I am a', required: false },
  { name: 'phoneNumber', label: 'Phone (optional)', required: false },
  { name: 'message', label: 'Message', required: false },
] as const;

export function contactFormWidget(c: SiteContent, origin: string): WidgetPage {
  const endpoint = endpointUrl(c, 'contact').url;
  const field = (name: string, label: string, control: string) =>
    `<label for="f-${name}">${e(label)}${control}<span class="field-error" id="error-${name}" role="alert"></span></label>`;
  // novalidate: the API is the one validator, and its field-named errors are what the form shows.
  const body = `<main>
<h1>Contact ${e(c.name)}</h1>
<p class="lede">Tell us about your brand or your channel; we reply by email. You can also write to <a href="mailto:${e(c.contactEmail)}">${e(c.contactEmail)}</a>.</p>
<form id="contact-form" novalidate>
${field('name', 'Name', '<input id="f-name" name="name" autocomplete="name">')}
${field('email', 'Email', '<input id="f-email" name="email" type="email" autocomplete="email" required>')}
${field('userType', 'I am a', '<select id="f-userType" name="userType"><option value="">Choose…</option><option value="brand">Brand</option><option value="creator">Creator</option><option value="agency">Agency</option></select>')}
${field('phoneNumber', 'Phone (optional)', '<input id="f-phoneNumber" name="phoneNumber" type="tel" autocomplete="tel">')}
${field('message', 'Message', '<textarea id="f-message" name="message"></textarea>')}
<button type="submit">Send</button>
<div id="status" class="status" role="status" aria-live="polite"></div>
</form>
</main>`;
  return widgetPage({
    name: 'contact-form',
    title: `Contact ${c.name}`,
    body,
    data: { endpoint, contactEmail: c.contactEmail },
    origin,
  });
}
