import { DISCOVERY_FILES } from '@forms/schemas';
import Router from '@koa/router';
import type { Site } from './content/site.ts';
import { sendPublished } from './published-file.ts';

/** llms.txt, agents.md, the .well-known files, robots.txt and the rest, plus each SKILL.md the index names. */
export function discoveryRoutes({ site }: { site: Site }): Router {
  const router = new Router();
  const paths = [
    ...DISCOVERY_FILES.map((f) => f.path as string),
    ...[...site.files.keys()].filter((p) => p.startsWith('/.well-known/agent-skills/') && p.endsWith('/SKILL.md')),
  ];
  for (const path of paths) {
    const file = site.files.get(path)!;
    router.get(path, async function discoveryFile(ctx) {
      sendPublished(ctx, file);
    });
  }
  return router;
}
