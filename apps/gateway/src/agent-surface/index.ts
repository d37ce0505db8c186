import Router from '@koa/router';
import type { Logger } from 'pino';
import type { GatewayConfig } from '../config.ts';
import { buildSite } from './content/site.ts';
import { discoveryRoutes } from './discovery-routes.ts';
import { createLatestVideoSource } from './latest-video/latest-video-cache.ts';
import { latestVideoRoutes } from './latest-video/latest-video-routes.ts';
import { mcpRoutes } from './mcp/mcp-routes.ts';
import { openApiRoutes } from './openapi-routes.ts';
import { widgetRoutes } from './widget-routes.ts';

/** Optional seams for the agent surface: how the video feed is fetched, and the clock its cache reads. */
export type AgentSurfaceDeps = { fetch?: typeof globalThis.fetch; clock?: () => number };

/**
 * The agent-surface wing: AI agents' user. MCP, discovery files, widgets, /openapi.json and /docs, and the
 * latest-video helper, built once from the content source at start-up.
 */
export function agentSurfaceRouter({
  config,
  logger,
  fetch,
  clock,
}: { config: GatewayConfig; logger: Logger } & AgentSurfaceDeps): Router {
  const site = buildSite(config);
  const videos = config.videoFeedUrl
    ? createLatestVideoSource({
        feedUrl: config.videoFeedUrl,
        ...(fetch ? { fetch } : {}),
        ...(clock ? { clock } : {}),
      })
    : undefined;
  const router = new Router();
  for (const routes of [
    latestVideoRoutes({ source: videos, logger }),
    mcpRoutes({ site, config }),
    discoveryRoutes({ site }),
    widgetRoutes({ site }),
    openApiRoutes({ site }),
  ]) {
    router.use(routes.routes());
  }
  return router;
}
