import { createQuarantine } from '@forms/quarantine';
import { BODY_LIMITS, CV_MAX_BYTES, SUBMISSION_ENDPOINTS, type SubmissionEndpoint } from '@forms/schemas';
import type { Queue } from 'bullmq';
import { ApiError } from '../errors.ts';
import type { readJsonBody } from '../middleware/json-body.ts';
import { methodNotAllowed } from '../middleware/method-not-allowed.ts';
import { queueUnavailable } from '../redis-deadline.ts';
import type { SubmissionDeps } from './accept-submission.ts';
import { createClaims } from './claim-submission.ts';
import { cvFileFromUpload } from './cv/cv-file-from-upload.ts';
import { cvUploadSlots } from './cv/cv-upload-slots.ts';
import { formPostAnswers } from './form-post-answers.ts';
import { createEnqueue, type DurableAck, writeAtEndOfTurn } from './queue.ts';
import { createRateLimit } from './rate-limit.ts';
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

/** What a route's body is read with (readJsonBody): its limit, and how a form post is read. */
export type BodyOptions = Parameters<typeof readJsonBody>[1];

/** One submission endpoint as the routes answer it, made once at start-up. */
export type SubmissionRoute = {
  endpoint: SubmissionEndpoint;
  otherMethod: ReturnType<typeof methodNotAllowed>;
  /** Made once: the hot path allocates no options object per request. */
  body: BodyOptions;
};

/**
 * The submissions wing, wired: everything the submission routes use, made once at start-up from the
 * gateway's connections and settings. What a request meets is in submission-routes.ts; this is what it
 * is made of.
 */
export function wireSubmissionWing(wing: SubmissionWingDeps) {
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
  const routes = new Map<string, SubmissionRoute>(
    SUBMISSION_ENDPOINTS.map((endpoint) => [
      endpoint.path.toLowerCase(),
      {
        endpoint,
        otherMethod: methodNotAllowed([endpoint.method]),
        body: (endpoint.kind === 'careers-apply'
          ? { ...careersBody, forms: { booleans: booleanFields(endpoint), file: cvInput } }
          : { ...otherBody, forms: { booleans: booleanFields(endpoint) } }) as BodyOptions,
      },
    ]),
  );
  return { deps, cvSlots, routes, forms: formPostAnswers(wing) };
}

/** The WAIT and the slot's owner it is checked against, sharing one slot look-up. */
function durableAck(redis: SubmissionWingDeps['redis'], config: SubmissionWingDeps['config']): DurableAck {
  const owner = queueSlotOwner(redis, config);
  return { owner, wait: () => waitForReplicas(redis, config, owner) };
}

/** The top-level fields whose schema is a plain boolean, which a form sends as "on" or "true". */
function booleanFields(endpoint: SubmissionEndpoint): ReadonlySet<string> {
  type Schema = { type: string; wrapped?: Schema; entries?: Record<string, Schema> };
  const unwrap = (schema: Schema): Schema => (schema.wrapped ? unwrap(schema.wrapped) : schema);
  const entries = (endpoint.request as unknown as Schema).entries ?? {};
  return new Set(Object.keys(entries).filter((name) => unwrap(entries[name]!).type === 'boolean'));
}
