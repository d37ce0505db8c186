import Koa from 'koa';
import cors from '@koa/cors';
import type { Queue } from 'bullmq';
import type { Redis } from 'ioredis';
import type { Logger } from 'pino';
import type { ObjectStorage } from '@forms/object-storage';
import type { GatewayConfig } from './config.ts';
import { ApiError } from './errors.ts';
import { errorHandler } from './middleware/error-handler.ts';
import { buildSite } from './content/site.ts';
import { createLatestVideoSource } from './latest-video-cache.ts';
import { discoveryRoutes } from './routes/discovery.ts';
import { healthRoutes } from './routes/health.ts';
import { latestVideoRoutes } from './routes/latest-video.ts';
import { mcpRoutes } from './routes/mcp.ts';
import { openApiRoutes } from './routes/openapi.ts';
import { submissionRoutes } from './routes/submissions.ts';
import { widgetRoutes } from './routes/widgets.ts';

/** `storage` stages careers CVs; without it an attached CV is answered with `cvUploadFailed: true`. */
export type GatewayDeps = { config: GatewayConfig; queue: Queue; redis: Redis; logger: Logger; storage?: ObjectStorage | undefined } & AgentSurfaceDeps;

/** Optional seams for the agent surface: how the video feed is fetched, and the clock its cache reads. */
export type AgentSurfaceDeps = { fetch?: typeof globalThis.fetch; clock?: () => number };

/** Mounts the routers and orders the middleware; no handler lives here. */
export function createApp(deps: GatewayDeps): Koa {
  const { config, logger } = deps;
  const app = new Koa({ proxy: config.trustProxy });
  app.use(
    cors({
      origin: '*',
      allowMethods: ['GET', 'HEAD', 'POST', 'PATCH', 'PUT', 'DELETE', 'OPTIONS'],
      allowHeaders: ['Content-Type', 'Accept', 'Idempotency-Key', 'Mcp-Protocol-Version', 'Authorization'],
      maxAge: 86_400,
    }),
  );
  app.use(errorHandler({ logger, documentation: `${config.publicBaseUrl}/docs#errors` }));

  const site = buildSite(config);
  const videos = config.videoFeedUrl
    ? createLatestVideoSource({ feedUrl: config.videoFeedUrl, ...(deps.fetch ? { fetch: deps.fetch } : {}), ...(deps.clock ? { clock: deps.clock } : {}) })
    : undefined;
  const routers = [
    healthRoutes({ redis: deps.redis, timeoutMs: config.enqueueTimeoutMs }),
    submissionRoutes(deps),
    latestVideoRoutes({ source: videos, logger }),
    mcpRoutes({ site, config }),
    discoveryRoutes({ site }),
    widgetRoutes({ site }),
    openApiRoutes({ site }),
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
