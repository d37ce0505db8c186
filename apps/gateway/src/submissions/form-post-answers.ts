import { BODY_LIMITS, type SubmissionEndpoint } from '@forms/schemas';
import type { Context } from 'koa';
import type { Logger } from 'pino';
import type { GatewayConfig } from '../config.ts';
import type { GatewayMetrics } from '../gateway-metrics.ts';
import { drainBody } from '../middleware/drain-body.ts';
import { toApiError } from '../middleware/error-handler.ts';
import { refusedPage } from './form-pages.ts';
import { noteRefusedRedirect } from './note-refused-redirect.ts';
import { redirectAllowlist } from './redirect-allowlist.ts';

/**
 * How a browser's own form post (no JavaScript) is answered: a redirect to the site's page, or a page of
 * ours. The JSON answers are the error handler's and the route's; these are the plain form's
 * (docs/site-forms.md#plain-html-forms).
 */
export function formPostAnswers(options: {
  config: Pick<GatewayConfig, 'formRedirectUrls' | 'cvUploadPace'>;
  logger?: Logger | undefined;
  metrics?: GatewayMetrics | undefined;
}) {
  const allowedTarget = redirectAllowlist(options.config.formRedirectUrls);
  const refusedRedirect = noteRefusedRedirect({ logger: options.logger, metrics: options.metrics });
  // A refused browser post is read to its end, so the person reads the answer: up to twice the largest body,
  // within the careers deadline (a CV past its limit is still arriving).
  const drainLimits = { maxBytes: 2 * BODY_LIMITS.careersBytes, timeoutMs: options.config.cvUploadPace.timeoutMs };

  /**
   * The allowlisted URL in a form's `_next` or `_error` field; absent, none. Off the list is the site's
   * mistake, not the person's (docs/site-forms.md#plain-html-forms): none either, so the person gets the
   * gateway's own page and the submission is judged on its own merits, and ops are told (noteRefusedRedirect).
   */
  function formTarget(body: unknown, field: '_next' | '_error', endpoint: SubmissionEndpoint): URL | undefined {
    const value = (body as Record<string, unknown> | undefined)?.[field];
    if (value === undefined || value === '') return undefined;
    const target = allowedTarget(value);
    if (!target) refusedRedirect(field, value, endpoint.kind);
    return target;
  }

  /** A plain form's success: 303 to its thank-you page, else our own small `page`. */
  function answerNavigation(ctx: Context, next: URL | undefined, page: string) {
    ctx.set('Cache-Control', 'no-store');
    if (next) {
      ctx.status = 303;
      ctx.set('Location', next.href);
      return;
    }
    ctx.type = 'text/html; charset=utf-8';
    ctx.body = page;
  }

  /**
   * A plain form's refusal: 303 back to its own page (`_error`, allowlisted) with the code and the field
   * in the query string (never a value), else a page of ours saying in words what to do, with the error's
   * status (a 413 CV_TOO_LARGE is shown as a 413). A body refused before it was read whole (a 413, a CV past
   * its limit) still goes to `_error` when the form sent it before the file (readFormBody keeps it). An
   * unexpected error stays the error handler's 500.
   */
  async function answerRefusal(ctx: Context, endpoint: SubmissionEndpoint, err: unknown) {
    const error = toApiError(err, ctx.state.tooLarge);
    if (error.code === 'INTERNAL_ERROR') throw err;
    // A person's browser still sending the rest (a CV past its limit) must read the answer, not a reset.
    if (error.status === 413 && (await drainBody(ctx.req, drainLimits))) ctx.remove('Connection');
    const back = formTarget(ctx.state.submissionBody ?? ctx.state.formTargets, '_error', endpoint);
    ctx.set(error.headers);
    ctx.set('Cache-Control', 'no-store');
    if (back) {
      // A static site without JavaScript cannot read a query string: `{error}` in the page's path becomes the
      // code, one page per code (`/form-errors/{error}.html` → `/form-errors/CV_TOO_LARGE.html`).
      back.pathname = back.pathname.replaceAll('%7Berror%7D', error.code);
      back.searchParams.set('form', endpoint.kind);
      back.searchParams.set('error', error.code);
      if (error.field) back.searchParams.set('field', error.field);
      ctx.status = 303;
      ctx.set('Location', back.href);
      return;
    }
    ctx.status = error.status;
    ctx.type = 'text/html; charset=utf-8';
    ctx.body = refusedPage([{ code: error.code, field: error.field, message: error.message }]);
  }

  return { formTarget, answerNavigation, answerRefusal };
}
