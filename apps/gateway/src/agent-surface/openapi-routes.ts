import Router from '@koa/router';
import type { Site } from './content/site.ts';
import { sendPublished } from './published-file.ts';

/** /openapi.json, generated from packages/schemas at start-up, and /docs, rendered from it. */
export function openApiRoutes({ site }: { site: Site }): Router {
  const router = new Router();
  const spec = site.files.get('/openapi.json')!;
  const docs = site.files.get('/docs')!;
  router.get('/openapi.json', async function openApi(ctx) {
    sendPublished(ctx, spec);
  });
  router.get('/docs', async function apiDocs(ctx) {
    sendPublished(ctx, docs);
  });
  return router;
}
