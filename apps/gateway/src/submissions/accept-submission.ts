import type { ObjectStorage } from '@forms/object-storage';
import type { SpanHandle } from '@forms/observability';
import type { Quarantine } from '@forms/quarantine';
import {
  type CareersApplyRequestOutput,
  challengeToken,
  type JobData,
  type SpamJudgement,
  type SubmissionEndpoint,
  submissionEmail,
  toJobPayload,
} from '@forms/schemas';
import { countVerdict, isWorkEmail, type SpamCounters } from '@forms/spam-filter';
import type { Logger } from 'pino';
import type { GatewayConfig } from '../config.ts';
import { ApiError } from '../errors.ts';
import type { GatewayMetrics } from '../gateway-metrics.ts';
import type { AbuseCounters } from './abuse-counters.ts';
import { acceptedAtNow } from './accepted-at.ts';
import type { Claims } from './claim-submission.ts';
import { careersJobData } from './cv/careers-job-data.ts';
import { checkCvEnvelope } from './cv/check-cv-envelope.ts';
import { decodeCv } from './cv/decode-cv.ts';
import { honeypotFilled } from './honeypot.ts';
import { bodyFingerprint } from './idempotency-key.ts';
import { contactId, keyedSubmissionId, newId } from './ids.ts';
import type { Enqueue, ProducerRedis } from './queue.ts';
import { type ClientLimit, type RateLimit, rateLimited } from './rate-limit.ts';
import type { SubmissionKeys } from './submission-keys.ts';
import { parseOrThrow } from './validate.ts';

export type SubmissionDeps = {
  config: GatewayConfig;
  redis: ProducerRedis;
  enqueue: Enqueue;
  /** Where a submission with the honeypot filled goes instead of the queue. */
  quarantine: Quarantine;
  /** The honeypot's verdicts, counted for the metrics (the worker's judge counts the rest). */
  spamCounters: SpamCounters;
  keys: SubmissionKeys;
  /** The claim and idempotency scripts on `redis`, batched per turn. */
  claims: Claims;
  counters: AbuseCounters;
  rateLimit: RateLimit;
  storage?: ObjectStorage | undefined;
  logger?: Logger | undefined;
  metrics?: GatewayMetrics | undefined;
};

/** What the request brings besides its body. */
export type SubmissionRequest = {
  body: unknown;
  /** The checked Idempotency-Key header, if sent. */
  idempotencyKey: string | undefined;
  /** The per-client limit as it applies to this client (`RateLimit.forClient`), read once by the route. */
  rateLimit: ClientLimit | undefined;
  /** The request's X-Request-Id, carried in the job so one grep follows a submission end to end. */
  requestId?: string | undefined;
  /** The request's server span (tracing on): the submission's id, kind and round trips go on it. */
  span?: SpanHandle | undefined;
  /** The client's address (ctx.ip), for the judge: the challenge provider's `remoteip`, Akismet's `user_ip`. */
  ip?: string | undefined;
  /** The name an agent declared in the `Forms-Agent` header: the judge asks it no challenge. */
  agent?: string | undefined;
  /** The User-Agent header, for Akismet. */
  userAgent?: string | undefined;
  /** A browser's own form post (no JavaScript ran): a challenge token cannot be in it. */
  plainForm?: boolean | undefined;
};

/** The facts an answer is made of: the same for a first request and for its idempotent retries. */
type Outcome = { submissionId: string; recordId: string; known: boolean; cvUploadFailed: boolean };

/**
 * Validate, normalise, check the limit and the honeypot, claim ids, enqueue, answer: the whole request path
 * of a submission.
 *
 * With an Idempotency-Key, the key is claimed in the same script as the contact id, with the ids the
 * answer carries. A retry finds them: once the job was confirmed it gets the same answer and nothing is
 * added; before that (a 503 or a timeout in between) the job is added again under the same job id, which
 * BullMQ ignores if the first add did land. Either way the key ends with exactly one job.
 */
export async function acceptSubmission(deps: SubmissionDeps, endpoint: SubmissionEndpoint, req: SubmissionRequest) {
  const { config } = deps;
  // A client already refused in this window was refused before its body was read (submission-routes.ts).
  const { rateLimit } = req;
  // Narrowing on the kind types the parsed body by its own endpoint's schema, so the payload needs no cast.
  let parsed: { careers: CareersApplyRequestOutput } | { other: JobData };
  if (endpoint.kind === 'careers-apply') {
    checkCvEnvelope(req.body);
    parsed = { careers: lowerCaseEmail(endpoint, parseOrThrow(endpoint.request, req.body)) };
  } else {
    parsed = { other: lowerCaseEmail(endpoint, parseOrThrow(endpoint.request, req.body)) };
  }
  const request = 'careers' in parsed ? parsed.careers : parsed.other;
  const email = submissionEmail({ kind: endpoint.kind, data: request });
  const workEmail = isWorkEmail(email);
  if (endpoint.workEmailOnly && !workEmail) throw new ApiError('WORK_EMAIL_REQUIRED', { field: endpoint.emailField });
  // A CV is checked before anything is claimed: a bad one is a 4xx that leaves no idempotency record behind.
  const cvFile = 'careers' in parsed ? parsed.careers.cvFile : undefined;
  const checkedCv = cvFile ? await decodeCv(cvFile) : undefined;

  // The honeypot, free and decisive, is the one spam layer decided here: filled, everything runs as for any
  // submission (ids, Idempotency-Key, contact id, so the answer and its retries are a real one's), except
  // that the job is kept in the quarantine, with its reason, instead of the queue. Every other layer (the
  // rules, the content filter, a challenge, Akismet) is the worker's judge, after the answer and before the
  // CRM (DESIGN.md: the answer awaits only what it depends on): the job carries what it needs (`judge`).
  const honeypot: SpamJudgement | undefined = honeypotFilled(req.body)
    ? { reasons: [{ layer: 'honeypot', code: 'filled', weight: 1 }], ...(req.agent ? { agent: req.agent } : {}) }
    : undefined;

  let acceptedAt = acceptedAtNow();
  const idempotency = req.idempotencyKey
    ? { key: req.idempotencyKey, fingerprint: bodyFingerprint(endpoint.path, request) }
    : undefined;
  // Keyed, the submission's id comes from what the client sent, and a contact's id from its email: a retry
  // that meets a Redis which lost the first attempt's record (a failover) still carries the same ids, and
  // the CRM, keyed by them, holds it once (docs/architecture.md#ids).
  let submissionId = idempotency
    ? keyedSubmissionId(config.idKey, idempotency.key, idempotency.fingerprint)
    : newId('sub');
  // The claim's round trip is timed onto the request's span (`submission.claim_ms`), not a span of its own:
  // a span of its own, recorded and exported, was a quarter of what a sampled request cost (docs/tracing.md).
  // Timed only for a span that records it: otherwise nothing would read it.
  const span = req.span?.recording ? req.span : undefined;
  const claimStarted = span ? performance.now() : undefined;
  const claim =
    endpoint.contact || idempotency || rateLimit
      ? await deps.claims.claim({
          submissionId,
          acceptedAt,
          contact: endpoint.contact
            ? { email, candidateId: contactId(config.idKey, email), ttlSeconds: config.contactIndexTtlSeconds }
            : undefined,
          idempotency,
          rateLimit,
        })
      : undefined;
  const claimMs = claim && claimStarted !== undefined ? performance.now() - claimStarted : undefined;
  let outcome: Outcome = { submissionId, recordId: submissionId, known: false, cvUploadFailed: false };
  if (claim?.kind === 'limited') {
    if (rateLimit) deps.rateLimit.refused(rateLimit.client, claim.retryAfterMs);
    throw rateLimited(deps.counters, claim.retryAfterMs);
  }
  if (claim?.kind === 'new') outcome = { ...outcome, recordId: claim.recordId, known: claim.known };
  if (claim?.kind === 'replay') {
    const first = claim.record;
    if (first.fingerprint !== idempotency?.fingerprint) throw new ApiError('IDEMPOTENCY_KEY_REUSED');
    outcome = first;
    if (first.done) return answer(deps, endpoint, request, workEmail, outcome);
    // Not confirmed yet: add it again under the first request's ids (a no-op if its add did land).
    submissionId = first.submissionId;
    acceptedAt = first.acceptedAt;
  }

  span?.setAttributes({
    'submission.id': submissionId,
    'submission.kind': endpoint.kind,
    'submission.claim_ms': claimMs,
  });
  const data: JobData =
    'careers' in parsed ? await careersJobData(deps, submissionId, parsed.careers, checkedCv) : parsed.other;
  outcome.cvUploadFailed = 'cvUploadFailed' in data && !!data.cvUploadFailed;
  const payload = toJobPayload(endpoint.kind, data, {
    submissionId,
    recordId: outcome.recordId,
    acceptedAt,
    ...(req.requestId ? { requestId: req.requestId } : {}),
  });
  if (honeypot) {
    countVerdict(deps.spamCounters, { ...honeypot, spam: true });
    await deps.quarantine(payload, honeypot);
    deps.counters.honeypotQuarantined++;
  } else {
    const token = challengeToken(req.body);
    payload.judge = {
      ...(token ? { token } : {}),
      // Cut to the bounds JudgeInputSchema sets, so the worker's parse never fails a job for a long header.
      ...(req.ip ? { ip: req.ip.slice(0, 64) } : {}),
      ...(req.userAgent ? { userAgent: req.userAgent.slice(0, 1024) } : {}),
      ...(req.agent ? { agent: req.agent.slice(0, 128) } : {}),
      ...(req.plainForm ? { plainForm: true } : {}),
    };
    const started = performance.now();
    await deps.enqueue(payload);
    const enqueueMs = performance.now() - started;
    deps.metrics?.enqueueDuration.observe(enqueueMs / 1000);
    // The add's round trip, on the request's span: a span of its own was nearly half of what a sampled
    // request cost (docs/tracing.md#what-it-costs).
    span?.setAttributes({ 'submission.enqueue_ms': enqueueMs });
  }
  if (idempotency) {
    // The job is confirmed; if this mark fails, a retry merely adds it again under the same id (a no-op).
    await deps.claims
      .markDone(idempotency.key, outcome)
      .catch((err) => deps.logger?.debug({ err }, 'idempotency record not marked done'));
  }
  return answer(deps, endpoint, request, workEmail, outcome);
}

function answer(
  { config }: SubmissionDeps,
  endpoint: SubmissionEndpoint,
  request: object,
  workEmail: boolean,
  outcome: Outcome,
) {
  const base = { success: true, message: endpoint.thanks };
  switch (endpoint.responseName) {
    case 'ContactResponse':
      return { ...base, recordId: outcome.recordId, isWorkEmail: workEmail };
    case 'ContactUpdateResponse':
      return {
        ...base,
        recordId: outcome.recordId,
        updated: outcome.known,
        debug: { fieldsWritten: Object.keys(request), baseId: config.crmBaseId },
      };
    case 'CareersApplyResponse':
      return { ...base, recordId: outcome.submissionId, cvUploadFailed: outcome.cvUploadFailed };
    case 'SignupResponse':
      return { ...base, recordId: outcome.submissionId };
    case 'BasicSignupResponse':
      return base;
  }
}

/**
 * Emails are lower-cased here, once: the contact index, the job and every CRM see the same address. In place:
 * `data` is parseOrThrow's output, made for this request.
 */
function lowerCaseEmail<T extends object>(endpoint: SubmissionEndpoint, data: T): T {
  const field = endpoint.emailField as keyof T;
  (data as Record<keyof T, unknown>)[field] = String(data[field]).toLowerCase();
  return data;
}
