import Koa from 'koa';
import cors from '@koa/cors';
import type { Queue } from 'bullmq';
import type { Redis } from 'ioredis';
import type { Logger } from 'pino';
import type { GatewayConfig } from './config.ts';
import { ApiError } from './errors.ts';
import { errorHandler } from './middleware/error-handler.ts';
import { healthRoutes } from './routes/health.ts';
import { submissionRoutes } from './routes/submissions.ts';

export type GatewayDeps = { config: GatewayConfig; queue: Queue; redis: Redis; logger: Logger };

/** Mounts the routers and orders the middleware; no handler lives here. */
export function createApp(deps: GatewayDeps): Koa {
  const { config, logger } = deps;
  const app = new Koa({ proxy: true });
  app.use(
    cors({
      origin: '*',
      allowMethods: ['GET', 'HEAD', 'POST', 'PATCH', 'PUT', 'DELETE', 'OPTIONS'],
      allowHeaders: ['Content-Type', 'Accept', 'Idempotency-Key', 'Mcp-Protocol-Version', 'Authorization'],
      maxAge: 86_400,
    }),
  );
  app.use(errorHandler({ logger, documentation: `${config.publicBaseUrl}/docs#errors` }));

  for (const router of [healthRoutes({ redis: deps.redis, timeoutMs: config.enqueueTimeoutMs }), submissionRoutes(deps)]) {
    app.use(router.routes());
  }
  app.use(async function notFound(ctx) {
    throw new ApiError(ctx.path.startsWith('/api/') ? 'API_ENDPOINT_NOT_FOUND' : 'NOT_FOUND');
  });
  app.on('error', (err) => logger.error({ err }, 'unhandled koa error'));
  return app;
}
