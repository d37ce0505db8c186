import type { Context } from 'koa';
import { FORM_TYPES } from '../middleware/read-form-body.ts';

/**
 * A browser's own form post (no JavaScript), which gets a page or a redirect instead of JSON. The rule
 * (docs/site-forms.md#plain-html-forms): the body is a form (urlencoded or multipart) AND the browser says
 * it is navigating: `Sec-Fetch-Mode: navigate`, or, from a client that sends no Sec-Fetch-Mode at all, an
 * `Accept` that names text/html. A `fetch` with FormData is `Sec-Fetch-Mode: cors` and keeps its JSON
 * answers; so do curl and servers (no Sec-Fetch-Mode, `Accept: *\/*` or JSON).
 */
export function isFormNavigation(ctx: Context): boolean {
  if (!FORM_TYPES.has(ctx.request.type)) return false;
  const mode = ctx.get('sec-fetch-mode');
  if (mode !== '') return mode === 'navigate';
  return ctx.get('accept').includes('text/html');
}
