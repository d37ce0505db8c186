import { BODY_LIMITS, SUBMISSION_ENDPOINTS } from '@forms/schemas';
import Router from '@koa/router';
import type { Queue } from 'bullmq';
import type { Context } from 'koa';
import { errorStyle } from '../middleware/error-handler.ts';
import { jsonBody } from '../middleware/json-body.ts';
import { methodNotAllowed } from '../middleware/method-not-allowed.ts';
import { validHost } from '../middleware/valid-host.ts';
import { acceptSubmission, type SubmissionDeps } from './accept-submission.ts';
import { cvUploadSlots } from './cv/cv-upload-slots.ts';
import { readIdempotencyKey } from './idempotency-key.ts';
import { createEnqueue } from './queue.ts';
import { createRateLimit } from './rate-limit.ts';
import { submissionKeys } from './submission-keys.ts';
import { waitForReplicas } from './wait-for-replicas.ts';

export type SubmissionWingDeps = Omit<SubmissionDeps, 'enqueue' | 'keys' | 'rateLimit'> & { queue: Queue };

export function submissionRoutes(wing: SubmissionWingDeps): Router {
  const { config } = wing;
  const deps: SubmissionDeps = {
    ...wing,
    keys: submissionKeys(config.redis, config.queueName),
    // Durable acks: one WAIT after each bulk add, on the connection and node that took it.
    enqueue: createEnqueue(wing.queue, config.enqueueTimeoutMs, () => waitForReplicas(wing.redis, config)),
    // One limit for every submission route: it is per client, whatever the client submits.
    rateLimit: createRateLimit(config.rateLimit),
  };
  const router = new Router();
  // One set of slots for the process: the cap is on memory, whichever route the CV comes by.
  const cvSlots = cvUploadSlots({ max: config.cvUploadSlots, smallBodyBytes: BODY_LIMITS.submissionBytes });
  for (const endpoint of SUBMISSION_ENDPOINTS) {
    router.register(
      endpoint.path,
      [endpoint.method],
      [
        errorStyle(endpoint.errorStyle),
        validHost(),
        ...(endpoint.kind === 'careers-apply'
          ? [
              cvSlots,
              jsonBody({ limit: BODY_LIMITS.careersBytes, tooLarge: { code: 'CV_TOO_LARGE', field: 'cvFile.data' } }),
            ]
          : [jsonBody({ limit: BODY_LIMITS.submissionBytes })]),
        async function submit(ctx: Context) {
          ctx.body = await acceptSubmission(deps, endpoint, {
            body: ctx.request.body,
            idempotencyKey: readIdempotencyKey(ctx.request.headers['idempotency-key']),
            ip: ctx.ip,
            requestId: ctx.state.requestId,
          });
        },
      ],
    );
    router.all(endpoint.path, errorStyle(endpoint.errorStyle), methodNotAllowed([endpoint.method]));
  }
  return router;
}
