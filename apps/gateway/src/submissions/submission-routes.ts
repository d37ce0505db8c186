import { createQuarantine } from '@forms/quarantine';
import { BODY_LIMITS, CV_MAX_BYTES, SUBMISSION_ENDPOINTS, type SubmissionEndpoint } from '@forms/schemas';
import type { Queue } from 'bullmq';
import type { Context, Middleware, Next } from 'koa';
import { ApiError } from '../errors.ts';
import { drainBody } from '../middleware/drain-body.ts';
import { toApiError } from '../middleware/error-handler.ts';
import { readJsonBody } from '../middleware/json-body.ts';
import { methodNotAllowed } from '../middleware/method-not-allowed.ts';
import { requestSpan } from '../middleware/trace-requests.ts';
import { checkHost } from '../middleware/valid-host.ts';
import { queueUnavailable } from '../redis-deadline.ts';
import { acceptSubmission, type SubmissionDeps } from './accept-submission.ts';
import { createClaims } from './claim-submission.ts';
import { cvFileFromUpload } from './cv/cv-file-from-upload.ts';
import { cvUploadSlots } from './cv/cv-upload-slots.ts';
import { refusedPage, thanksPage, uncheckedPage } from './form-pages.ts';
import { readIdempotencyKey } from './idempotency-key.ts';
import { isFormNavigation } from './is-form-navigation.ts';
import { noteRefusedRedirect } from './note-refused-redirect.ts';
import { plainFormWithoutToken } from './plain-form-challenge.ts';
import { createEnqueue, type DurableAck, writeAtEndOfTurn } from './queue.ts';
import { type ClientLimit, createRateLimit, fullWindowFor, rateLimited } from './rate-limit.ts';
import { redirectAllowlist } from './redirect-allowlist.ts';
import { readAgentName } from './spam/read-agent-name.ts';
import { submissionKeys } from './submission-keys.ts';
import { createTransitionHold } from './transition-hold.ts';
import { queueSlotOwner, waitForReplicas } from './wait-for-replicas.ts';

export type SubmissionWingDeps = Omit<SubmissionDeps, 'enqueue' | 'quarantine' | 'keys' | 'claims' | 'rateLimit'> & {
  queue: Queue;
  /** While true (this gateway's ID_KEY differs from the others'), every submission is a 503 GATEWAY_NOT_READY. */
  refuseSubmissions?: (() => boolean) | undefined;
  /** Aborted when the gateway stops: submissions held through a Redis transition are answered 503 at once. */
  stopping?: AbortSignal | undefined;
  /** How long Redis has been unreachable (redis-outage.ts): the hold rides only what can end within it. */
  redisOutageMs?: (() => number) | undefined;
};

const JSON_TYPE = 'application/json; charset=utf-8';

/** What a route's body is read with (readJsonBody): its limit, and how a form post is read. */
type BodyOptions = Parameters<typeof readJsonBody>[1];

/** How observeRequests names the route in its metrics (the property @koa/router sets on the other routes). */
type RoutedContext = Context & { _matchedRoute?: string };

/**
 * The eleven submission endpoints, as one middleware: the path is looked up in a map built at start-up,
 * and the route's steps (error style, Host check, CV slot, body, accept) are called in order: the hot path
 * of a launch skips a router's matching and a middleware per step (docs/architecture.md#the-submission-path). Paths match as @koa/router matches the others: exactly, else case-insensitively with one
 * trailing slash allowed. Another method on a submission path is a 405 with `Allow`.
 */
export function submissionRoutes(wing: SubmissionWingDeps): Middleware {
  const { config } = wing;
  const keys = submissionKeys(config.redis, config.queueName);
  // One hold for the claim and the add: a request held through a Redis transition is answered within it.
  const hold = createTransitionHold({
    limits: config.hold,
    logger: wing.logger,
    metrics: wing.metrics,
    signal: wing.stopping,
    outageMs: wing.redisOutageMs,
  });
  const deps: SubmissionDeps = {
    ...wing,
    keys,
    claims: createClaims(wing.redis, keys, config.enqueueTimeoutMs, hold),
    // Durable acks: a WAIT after the adds, on the connection and node that took them.
    enqueue: createEnqueue(
      wing.queue,
      wing.redis,
      config.enqueueTimeoutMs,
      config.ackReplicas > 0 ? durableAck(wing.redis, config) : undefined,
      hold,
    ),
    quarantine: createQuarantine(wing.redis, config.redis, config.queueName, {
      ...config.quarantine,
      timeoutMs: config.enqueueTimeoutMs,
      failure: queueUnavailable,
      beforeWrite: () => writeAtEndOfTurn(wing.redis),
    }),
    // One limit for every submission route: it is per client, whatever the client submits.
    rateLimit: createRateLimit(config.rateLimit),
  };
  // One set of slots for the process: the cap is on memory, whichever route the CV comes by.
  const cvSlots = cvUploadSlots({
    max: config.cvUploadSlots,
    perClient: config.cvUploadSlotsPerClient,
    smallBodyBytes: BODY_LIMITS.submissionBytes,
  });
  // A form post's CV comes as a file input, mapped onto the JSON caller's cvFile (cvFileFromUpload).
  const cvInput = {
    field: 'cvFile',
    maxBytes: CV_MAX_BYTES,
    tooLarge: () => new ApiError('CV_TOO_LARGE', { field: 'cvFile' }),
    toValue: cvFileFromUpload,
  };
  // A careers body holds a slot while it is read: it must keep arriving (CV_UPLOAD_TIMEOUT_MS, _MIN_BYTES_PER_SECOND).
  const careersBody = {
    limit: BODY_LIMITS.careersBytes,
    tooLarge: { code: 'CV_TOO_LARGE', field: 'cvFile.data' },
    pace: config.cvUploadPace,
  } as const;
  const otherBody = { limit: BODY_LIMITS.submissionBytes };
  // A refused browser post is read to its end up to twice the largest body, within the careers deadline.
  const drainLimits = { maxBytes: 2 * BODY_LIMITS.careersBytes, timeoutMs: config.cvUploadPace.timeoutMs };
  const allowedTarget = redirectAllowlist(config.formRedirectUrls);
  const refusedRedirect = noteRefusedRedirect({ logger: wing.logger, metrics: wing.metrics });

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
    const next = navigation ? formTarget(body, '_next', endpoint) : undefined;
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
      return answerNavigation(ctx, undefined, uncheckedPage(config.contactEmail));
    }
    if (navigation) return answerNavigation(ctx, next, thanksPage(endpoint.thanks));
    // What Koa would set for a JSON body, without its look-up of the type by name on every answer.
    ctx.set('Content-Type', JSON_TYPE);
    ctx.body = answer;
  }

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

  const routes = new Map(
    SUBMISSION_ENDPOINTS.map((endpoint) => [
      endpoint.path.toLowerCase(),
      {
        endpoint,
        otherMethod: methodNotAllowed([endpoint.method]),
        // Made once: the hot path allocates no options object per request.
        body: (endpoint.kind === 'careers-apply'
          ? { ...careersBody, forms: { booleans: booleanFields(endpoint), file: cvInput } }
          : { ...otherBody, forms: { booleans: booleanFields(endpoint) } }) as BodyOptions,
      },
    ]),
  );
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
      await answerRefusal(ctx, endpoint, err);
    }
  };
}

/** The WAIT and the slot's owner it is checked against, sharing one slot look-up. */
function durableAck(redis: SubmissionWingDeps['redis'], config: SubmissionWingDeps['config']): DurableAck {
  const owner = queueSlotOwner(redis, config);
  return { owner, wait: () => waitForReplicas(redis, config, owner) };
}

/** A 4xx about what the client sent (its body, its media type, its size), not about the limit or a key. */
function isBodyFault(err: unknown): boolean {
  const status = (err as { status?: unknown })?.status;
  return typeof status === 'number' && status >= 400 && status < 500 && status !== 409 && status !== 429;
}

/** The top-level fields whose schema is a plain boolean, which a form sends as "on" or "true". */
function booleanFields(endpoint: SubmissionEndpoint): ReadonlySet<string> {
  type Schema = { type: string; wrapped?: Schema; entries?: Record<string, Schema> };
  const unwrap = (schema: Schema): Schema => (schema.wrapped ? unwrap(schema.wrapped) : schema);
  const entries = (endpoint.request as unknown as Schema).entries ?? {};
  return new Set(Object.keys(entries).filter((name) => unwrap(entries[name]!).type === 'boolean'));
}
