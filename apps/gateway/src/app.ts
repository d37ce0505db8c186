import type { ObjectStorage } from '@forms/object-storage';
import { tracingStarted } from '@forms/observability';
import { erasureKeys, opsKeys, SHARED_SECRETS, sharedSecretKeys } from '@forms/schemas';
import { createSpamCounters, type SpamCounters } from '@forms/spam-filter';
import type { Queue } from 'bullmq';
import Koa from 'koa';
import type { Logger } from 'pino';
import { adminWing } from './admin/index.ts';
import { type AgentSurfaceDeps, agentSurfaceRouter } from './agent-surface/index.ts';
import type { GatewayConfig } from './config.ts';
import { ApiError } from './errors.ts';
import { createGatewayMetrics, type GatewayMetrics } from './gateway-metrics.ts';
import { healthRoutes } from './health-routes.ts';
import { errorHandler } from './middleware/error-handler.ts';
import { observeRequests } from './middleware/observe-requests.ts';
import { publicCors } from './middleware/public-cors.ts';
import { requestId } from './middleware/request-id.ts';
import { traceRequests } from './middleware/trace-requests.ts';
import type {} from './request-state.ts';
import { type AbuseCounters, createAbuseCounters, type ProducerRedis, submissionRoutes } from './submissions/index.ts';

/**
 * `storage` stages careers CVs; without it an attached CV is answered with `cvUploadFailed: true`.
 * `counters` counts what the abuse controls turned away (made here when not given).
 */
export type GatewayDeps = {
  config: GatewayConfig;
  queue: Queue;
  redis: ProducerRedis;
  logger: Logger;
  storage?: ObjectStorage | undefined;
  metrics?: GatewayMetrics;
  counters?: AbuseCounters;
  /** Why this process is not ready (an ID_KEY that differs from the other gateways'), for /readyz. */
  notReady?: () => string | undefined;
  /** While true, submissions are refused (503 GATEWAY_NOT_READY): this gateway's ids would not match. */
  refuseSubmissions?: () => boolean;
  /** Aborted when the gateway stops: what the submission wing holds through a Redis transition is answered. */
  stopping?: AbortSignal | undefined;
  /** How long Redis has been unreachable (Infinity: since start); an outage older than the hold is a 503 at once. */
  redisOutageMs?: (() => number) | undefined;
  spamCounters?: SpamCounters;
} & AgentSurfaceDeps;

/** Mounts the wings' routers and orders the middleware; no handler lives here. */
export function createApp(deps: GatewayDeps): Koa {
  const { config, logger } = deps;
  const counters = deps.counters ?? createAbuseCounters();
  const spamCounters = deps.spamCounters ?? createSpamCounters();
  const keylessWorkersKey = erasureKeys(config.redis, config.queueName).keylessWorkers;
  const metrics =
    deps.metrics ??
    createGatewayMetrics({
      queue: deps.queue,
      timeoutMs: config.enqueueTimeoutMs,
      counters,
      spamCounters,
      redis: deps.redis,
      airtableBaseId: config.airtableBaseId,
      keylessWorkersKey,
      secretDiffersKeys: Object.fromEntries(
        SHARED_SECRETS.map((variable) => [
          variable,
          sharedSecretKeys(config.redis, config.queueName, variable).differing,
        ]),
      ),
    });
  // Koa takes the leftmost X-Forwarded-For address unless told how many hops to read from the right; a
  // client writing its own first hop then escaped the per-client limit behind our nginx.
  const app = new Koa({ proxy: config.trustedProxyHops > 0, maxIpsCount: config.trustedProxyHops });
  // Mounted only with tracing on: off, not even a middleware's call per request.
  if (tracingStarted()) app.use(traceRequests());
  app.use(requestId());
  app.use(observeRequests({ metrics, logger }));
  app.use(publicCors());
  app.use(errorHandler({ logger, documentation: `${config.publicBaseUrl}/docs#errors` }));

  // The submission paths first: they are the traffic of a launch, looked up in a map before any router runs.
  app.use(submissionRoutes({ ...deps, metrics, counters, spamCounters }));
  // The admin wing's guard before every router: any spelling of an admin path needs the token (admin/index.ts).
  // No token, no admin surface: /admin/* falls through to the 404 below.
  if (config.adminToken) {
    app.use(
      adminWing({
        token: config.adminToken,
        previousToken: config.adminTokenPrevious,
        queue: deps.queue,
        redis: deps.redis,
        metrics,
        timeoutMs: config.enqueueTimeoutMs,
        boardWrites: config.bullBoardWrites ? { auditKey: opsKeys(config.redis, config.queueName).audit } : undefined,
        spamReview: {
          keys: opsKeys(config.redis, config.queueName),
          // Akismet's key is the worker's (it judges); the page teaches the shared filter, `ops spam` tells Akismet too.
          akismet: undefined,
          warn: (text) => logger.warn(text),
        },
      }),
    );
  }
  const routers = [
    healthRoutes({
      redis: deps.redis,
      timeoutMs: config.enqueueTimeoutMs,
      airtableBaseId: config.airtableBaseId,
      keylessWorkersKey,
      erasureKeyDiffersKey: sharedSecretKeys(config.redis, config.queueName, 'ERASURE_KEY').differing,
      notReady: deps.notReady,
    }),
    agentSurfaceRouter(deps),
  ];
  for (const router of routers) {
    app.use(router.routes());
  }
  app.use(async function notFound(ctx) {
    throw new ApiError(ctx.path.startsWith('/api/') ? 'API_ENDPOINT_NOT_FOUND' : 'NOT_FOUND');
  });
  app.on('error', (err) => logger.error({ err }, 'unhandled koa error'));
  return app;
}
