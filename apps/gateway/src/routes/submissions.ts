import Router from '@koa/router';
import type { Context, Next } from 'koa';
import type { Queue } from 'bullmq';
import type { Redis } from 'ioredis';
import type { Logger } from 'pino';
import type { ObjectStorage } from '@forms/object-storage';
import { SUBMISSION_ENDPOINTS, type JobPayload, type SubmissionEndpoint } from '@forms/schemas';
import type { GatewayConfig } from '../config.ts';
import { claimContactId } from '../contact-index.ts';
import { acceptCv, type CvFile } from '../cv/accept-cv.ts';
import { checkCvEnvelope } from '../cv/check-cv-envelope.ts';
import { ApiError } from '../errors.ts';
import { newId } from '../ids.ts';
import { errorStyle } from '../middleware/error-handler.ts';
import { jsonBody } from '../middleware/json-body.ts';
import { enqueueSubmission } from '../queue.ts';
import { parseOrThrow } from '../validate.ts';
import { isWorkEmail } from '../work-email.ts';

/** Every submission route but careers-apply takes small bodies; 16 KiB fits every field at its cap. */
export const SUBMISSION_BODY_LIMIT = '16kb';
/**
 * careers-apply's body limit: a CV of 5 MiB is about 6.7 MiB in base64, and the other fields add at most
 * a few tens of KiB; 7 MiB leaves room for both and no more. Over it, only the CV can be at fault.
 */
export const CAREERS_BODY_LIMIT = '7mb';

const THANKS: Record<SubmissionEndpoint['kind'], string> = {
  contact: 'Thanks for getting in touch: we received your message and will reply soon.',
  'contact-update': 'Your details were received and will be saved to your contact record.',
  'cpa-signup': 'You are signed up for creator partnership ads; we will be in touch.',
  'caf-signup': 'You are signed up; the content analysis framework is on its way to your inbox.',
  'cdg-signup': 'You are signed up; the creator discovery guide is on its way to your inbox.',
  'sfa-signup': 'You are signed up; the seeding affiliate playbook is on its way to your inbox.',
  'rebriefing-signup': 'You are signed up; the rebriefing playbook is on its way to your inbox.',
  'usa-signup': 'You are on the USA programme waitlist; we will be in touch.',
  'creator-signup': 'Thanks for signing up as a creator; we will be in touch.',
  'careers-apply': 'Thanks for applying; we received your application.',
  'partner-webinar': 'You are registered for the webinar; details will follow by email.',
};

export type SubmissionDeps = { config: GatewayConfig; queue: Queue; redis: Redis; storage?: ObjectStorage | undefined; logger?: Logger };

export function submissionRoutes(deps: SubmissionDeps): Router {
  const router = new Router();
  for (const endpoint of SUBMISSION_ENDPOINTS) {
    router.register(endpoint.path, [endpoint.method], [
      errorStyle(endpoint.errorStyle),
      endpoint.kind === 'careers-apply'
        ? jsonBody({ limit: CAREERS_BODY_LIMIT, tooLarge: { code: 'CV_TOO_LARGE', field: 'cvFile.data' } })
        : jsonBody({ limit: SUBMISSION_BODY_LIMIT }),
      async function submit(ctx: Context) {
        ctx.body = await acceptSubmission(deps, endpoint, ctx.request.body);
      },
    ]);
    router.all(endpoint.path, errorStyle(endpoint.errorStyle), methodNotAllowed([endpoint.method]));
  }
  return router;
}

/** Answers a method the path does not take: 405 with `Allow`; a plain OPTIONS gets 204 with `Allow`. */
export function methodNotAllowed(methods: readonly string[]) {
  const allow = [...methods, 'OPTIONS'].join(', ');
  return async function methodNotAllowed(ctx: Context, _next: Next) {
    ctx.set('Allow', allow);
    if (ctx.method === 'OPTIONS') {
      ctx.status = 204;
      return;
    }
    throw new ApiError('METHOD_NOT_ALLOWED', { detail: allow, headers: { Allow: allow } });
  };
}

/** Validate, normalise, assign ids, enqueue, answer: the whole request path of a submission. */
export async function acceptSubmission(deps: SubmissionDeps, endpoint: SubmissionEndpoint, body: unknown) {
  const { config, queue, redis } = deps;
  if (endpoint.kind === 'careers-apply') checkCvEnvelope(body);
  const data: Record<string, unknown> = { ...parseOrThrow(endpoint.request, body) };
  const email = String(data[endpoint.emailField]).toLowerCase();
  data[endpoint.emailField] = email;
  const workEmail = isWorkEmail(email);
  if (endpoint.workEmailOnly && !workEmail) throw new ApiError('WORK_EMAIL_REQUIRED', { field: endpoint.emailField });

  const submissionId = newId('sub');
  const contact = endpoint.contact
    ? await claimContactId(redis, config.queueName, email, config.enqueueTimeoutMs)
    : { recordId: submissionId, known: false };

  // The CV's bytes never go into the job: a checked CV is staged in object storage and only its reference
  // travels. One that cannot be kept does not cost the application; the answer (and the job) say so.
  const cv = endpoint.kind === 'careers-apply' ? await acceptCv(deps, submissionId, data.cvFile as CvFile | undefined) : undefined;
  delete data.cvFile;
  if (cv?.stagedCv) data.stagedCv = cv.stagedCv;
  if (cv?.cvUploadFailed) data.cvUploadFailed = true;

  const payload = {
    v: 1,
    submissionId,
    recordId: contact.recordId,
    kind: endpoint.kind,
    acceptedAt: new Date().toISOString(),
    data,
  } as JobPayload;
  await enqueueSubmission(queue, payload, config.enqueueTimeoutMs);

  const base = { success: true, message: THANKS[endpoint.kind] };
  switch (endpoint.responseName) {
    case 'ContactResponse':
      return { ...base, recordId: contact.recordId, isWorkEmail: workEmail };
    case 'ContactUpdateResponse':
      return {
        ...base,
        recordId: contact.recordId,
        updated: contact.known,
        debug: { fieldsWritten: Object.keys(data), baseId: config.crmBaseId },
      };
    case 'CareersApplyResponse':
      return { ...base, recordId: submissionId, cvUploadFailed: cv?.cvUploadFailed ?? false };
    case 'SignupResponse':
      return { ...base, recordId: submissionId };
    case 'BasicSignupResponse':
      return base;
  }
}
