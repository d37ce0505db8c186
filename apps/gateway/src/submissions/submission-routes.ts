import type { SubmissionEndpoint } from '@forms/schemas';
import type { Context, Middleware, Next } from 'koa';
import { ApiError } from '../errors.ts';
import { readJsonBody } from '../middleware/json-body.ts';
import { requestSpan } from '../middleware/trace-requests.ts';
import { checkHost } from '../middleware/valid-host.ts';
import { acceptSubmission } from './accept-submission.ts';
import { thanksPage, uncheckedPage } from './form-pages.ts';
import { readIdempotencyKey } from './idempotency-key.ts';
import { isFormNavigation } from './is-form-navigation.ts';
import { plainFormWithoutToken } from './plain-form-challenge.ts';
import { type ClientLimit, fullWindowFor, rateLimited } from './rate-limit.ts';
import { readAgentName } from './spam/read-agent-name.ts';
import { type BodyOptions, type SubmissionWingDeps, wireSubmissionWing } from './submission-wing.ts';

const JSON_TYPE = 'application/json; charset=utf-8';

/** How observeRequests names the route in its metrics (the property @koa/router sets on the other routes). */
type RoutedContext = Context & { _matchedRoute?: string };

/**
 * The eleven submission endpoints, as one middleware: the path is looked up in a map built at start-up
 * (submission-wing.ts), and the route's steps (error style, Host check, CV slot, body, accept) are called in
 * order: the hot path of a launch skips a router's matching and a middleware per step
 * (docs/architecture.md#the-submission-path). Paths match as @koa/router matches the others: exactly, else
 * case-insensitively with one trailing slash allowed. Another method on a submission path is a 405 with `Allow`.
 */
export function submissionRoutes(wing: SubmissionWingDeps): Middleware {
  const { config } = wing;
  const { deps, cvSlots, routes, forms } = wireSubmissionWing(wing);

  async function submit(
    ctx: Context,
    endpoint: SubmissionEndpoint,
    bodyOptions: BodyOptions,
    rateLimit: ClientLimit | undefined,
  ) {
    if (wing.refuseSubmissions?.()) throw new ApiError('GATEWAY_NOT_READY', { headers: { 'Retry-After': '5' } });
    const body = await readJsonBody(ctx, bodyOptions);
    // Only a form post can be a browser's navigation: a JSON body costs one look at ctx.state here.
    const navigation = ctx.state.formPost === true && isFormNavigation(ctx);
    if (navigation) ctx.state.submissionBody = body;
    // A thank-you page off the allowlist is never followed (no open redirect), and never costs the submission.
    const next = navigation ? forms.formTarget(body, '_next', endpoint) : undefined;
    const agent = readAgentName(ctx.request.headers['forms-agent']);
    const answer = await acceptSubmission(deps, endpoint, {
      body,
      idempotencyKey: readIdempotencyKey(ctx.request.headers['idempotency-key']),
      rateLimit,
      requestId: ctx.state.requestId,
      span: requestSpan(ctx),
      ip: ctx.ip,
      agent,
      userAgent: ctx.request.headers['user-agent'],
      plainForm: navigation,
    });
    if (navigation && plainFormWithoutToken(config.requiredChallenge, endpoint.kind, body, agent)) {
      // Received and held for review: the person is told so, not sent to a page that says it arrived.
      return forms.answerNavigation(ctx, undefined, uncheckedPage(config.contactEmail));
    }
    if (navigation) return forms.answerNavigation(ctx, next, thanksPage(endpoint.thanks));
    // What Koa would set for a JSON body, without its look-up of the type by name on every answer.
    ctx.set('Content-Type', JSON_TYPE);
    ctx.body = answer;
  }

  return async function submissions(ctx: RoutedContext, next: Next) {
    const route = routes.get(ctx.path) ?? routes.get(ctx.path.toLowerCase().replace(/(.)\/$/, '$1'));
    if (!route) return next();
    const { endpoint } = route;
    ctx._matchedRoute = endpoint.path;
    ctx.state.errorStyle = endpoint.errorStyle;
    if (ctx.method !== endpoint.method) return route.otherMethod(ctx, next);
    try {
      checkHost(ctx);
      // The per-client limit before the body costs anything (and before a CV slot is taken): a client Redis
      // already refused in this window is refused from memory, whatever it sends.
      const limit = deps.rateLimit.forClient(ctx.ip);
      const waitMs = limit && deps.rateLimit.waitFor(limit.client);
      if (waitMs) throw rateLimited(deps.counters, waitMs);
      try {
        if (endpoint.kind === 'careers-apply') await cvSlots(ctx, () => submit(ctx, endpoint, route.body, limit));
        else await submit(ctx, endpoint, route.body, limit);
      } catch (err) {
        // A bad body from a client whose window is full (counted on another gateway, or not yet refused) is
        // over the limit too: Redis is asked on this error path only.
        if (limit && isBodyFault(err)) {
          const key = deps.keys.rateLimit(limit.client);
          const left = await fullWindowFor(wing.redis, key, limit.requests, config.enqueueTimeoutMs);
          if (left) {
            deps.rateLimit.refused(limit.client, left);
            throw rateLimited(deps.counters, left);
          }
        }
        throw err;
      }
    } catch (err) {
      // A browser's own form post (no JavaScript) is answered with a page or a redirect, whatever failed.
      if (!isFormNavigation(ctx)) throw err;
      await forms.answerRefusal(ctx, endpoint, err);
    }
  };
}

/** A 4xx about what the client sent (its body, its media type, its size), not about the limit or a key. */
function isBodyFault(err: unknown): boolean {
  const status = (err as { status?: unknown })?.status;
  return typeof status === 'number' && status >= 400 && status < 500 && status !== 409 && status !== 429;
}
