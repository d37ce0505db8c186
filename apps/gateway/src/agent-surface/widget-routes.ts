import Router from '@koa/router';
import type { Site } from './content/site.ts';
import { sendPublished } from './published-file.ts';

/** /ui/<name>.html: the MCP Apps widgets as pages, byte for byte what resources/read returns. */
export function widgetRoutes({ site }: { site: Site }): Router {
  const router = new Router();
  for (const name of site.widgets.keys()) {
    const file = site.files.get(`/ui/${name}.html`)!;
    router.get(`/ui/${name}.html`, async function widget(ctx) {
      sendPublished(ctx, file);
    });
  }
  return router;
}
