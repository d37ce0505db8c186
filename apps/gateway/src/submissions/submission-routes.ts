import { BODY_LIMITS, opsKeys, SUBMISSION_ENDPOINTS, type SubmissionEndpoint } from '@forms/schemas';
import type { Queue } from 'bullmq';
import type { Context, Middleware, Next } from 'koa';
import { readJsonBody } from '../middleware/json-body.ts';
import { methodNotAllowed } from '../middleware/method-not-allowed.ts';
import { requestSpan } from '../middleware/trace-requests.ts';
import { checkHost } from '../middleware/valid-host.ts';
import { acceptSubmission, type SubmissionDeps } from './accept-submission.ts';
import { createClaims } from './claim-submission.ts';
import { cvUploadSlots } from './cv/cv-upload-slots.ts';
import { readIdempotencyKey } from './idempotency-key.ts';
import { createQuarantine } from './quarantine.ts';
import { createEnqueue } from './queue.ts';
import { type ClientLimit, createRateLimit, fullWindowFor, rateLimited } from './rate-limit.ts';
import { createContentFilter } from './spam/content-filter.ts';
import { createSpamJudge } from './spam/judge-submission.ts';
import { readAgentName } from './spam/read-agent-name.ts';
import { submissionKeys } from './submission-keys.ts';
import { waitForReplicas } from './wait-for-replicas.ts';

export type SubmissionWingDeps = Omit<
  SubmissionDeps,
  'enqueue' | 'quarantine' | 'keys' | 'claims' | 'rateLimit' | 'judgeSubmission'
> & {
  queue: Queue;
};

const JSON_TYPE = 'application/json; charset=utf-8';

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
  const deps: SubmissionDeps = {
    ...wing,
    keys,
    claims: createClaims(wing.redis, keys, config.enqueueTimeoutMs),
    // Durable acks: a WAIT after the adds, on the connection and node that took them.
    enqueue: createEnqueue(
      wing.queue,
      wing.redis,
      config.enqueueTimeoutMs,
      config.ackReplicas > 0 ? () => waitForReplicas(wing.redis, config) : undefined,
    ),
    quarantine: createQuarantine(wing.redis, config.redis, config.queueName, {
      ...config.quarantine,
      timeoutMs: config.enqueueTimeoutMs,
    }),
    // One limit for every submission route: it is per client, whatever the client submits.
    rateLimit: createRateLimit(config.rateLimit),
    judgeSubmission: createSpamJudge({
      rules: config.spam.rules,
      challenge: config.spam.challenge,
      filter: config.spam.filter
        ? createContentFilter({
            redis: wing.redis,
            modelKey: opsKeys(config.redis, config.queueName).spamModel,
            threshold: config.spam.filter.threshold,
            minLabels: config.spam.filter.minLabels,
            refreshMs: config.spam.filter.refreshMs,
            timeoutMs: config.enqueueTimeoutMs,
            logger: wing.logger,
          })
        : undefined,
      akismet: config.spam.akismet,
      counters: wing.spamCounters,
      logger: wing.logger,
    }),
  };
  // One set of slots for the process: the cap is on memory, whichever route the CV comes by.
  const cvSlots = cvUploadSlots({
    max: config.cvUploadSlots,
    perClient: config.cvUploadSlotsPerClient,
    smallBodyBytes: BODY_LIMITS.submissionBytes,
  });
  // A careers body holds a slot while it is read: it must keep arriving (CV_UPLOAD_TIMEOUT_MS, _MIN_BYTES_PER_SECOND).
  const careersBody = {
    limit: BODY_LIMITS.careersBytes,
    tooLarge: { code: 'CV_TOO_LARGE', field: 'cvFile.data' },
    pace: config.cvUploadPace,
  } as const;
  const otherBody = { limit: BODY_LIMITS.submissionBytes };

  async function submit(ctx: Context, endpoint: SubmissionEndpoint, rateLimit: ClientLimit | undefined) {
    const body = await readJsonBody(ctx, endpoint.kind === 'careers-apply' ? careersBody : otherBody);
    const answer = await acceptSubmission(deps, endpoint, {
      body,
      idempotencyKey: readIdempotencyKey(ctx.request.headers['idempotency-key']),
      rateLimit,
      requestId: ctx.state.requestId,
      span: requestSpan(ctx),
      ip: ctx.ip,
      agent: readAgentName(ctx.request.headers['forms-agent']),
      userAgent: ctx.request.headers['user-agent'],
    });
    // What Koa would set for a JSON body, without its look-up of the type by name on every answer.
    ctx.set('Content-Type', JSON_TYPE);
    ctx.body = answer;
  }

  const routes = new Map(
    SUBMISSION_ENDPOINTS.map((endpoint) => [
      endpoint.path.toLowerCase(),
      { endpoint, otherMethod: methodNotAllowed([endpoint.method]) },
    ]),
  );
  return async function submissions(ctx: RoutedContext, next: Next) {
    const route = routes.get(ctx.path) ?? routes.get(ctx.path.toLowerCase().replace(/(.)\/$/, '$1'));
    if (!route) return next();
    const { endpoint } = route;
    ctx._matchedRoute = endpoint.path;
    ctx.state.errorStyle = endpoint.errorStyle;
    if (ctx.method !== endpoint.method) return route.otherMethod(ctx, next);
    checkHost(ctx);
    // The per-client limit before the body costs anything (and before a CV slot is taken): a client Redis
    // already refused in this window is refused from memory, whatever it sends.
    const limit = deps.rateLimit.forClient(ctx.ip);
    const waitMs = limit && deps.rateLimit.waitFor(limit.client);
    if (waitMs) throw rateLimited(deps.counters, waitMs);
    try {
      if (endpoint.kind === 'careers-apply') await cvSlots(ctx, () => submit(ctx, endpoint, limit));
      else await submit(ctx, endpoint, limit);
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
  };
}

/** A 4xx about what the client sent (its body, its media type, its size), not about the limit or a key. */
function isBodyFault(err: unknown): boolean {
  const status = (err as { status?: unknown })?.status;
  return typeof status === 'number' && status >= 400 && status < 500 && status !== 409 && status !== 429;
}
