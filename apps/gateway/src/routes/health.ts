import Router from '@koa/router';
import type { Redis } from 'ioredis';
import { withQueueDeadline } from '../queue.ts';

/** `/healthz`: the process is up. `/readyz`: Redis answers, so submissions can be accepted. */
export function healthRoutes({ redis, timeoutMs }: { redis: Redis; timeoutMs: number }): Router {
  const router = new Router();
  router.get('/healthz', (ctx) => {
    ctx.body = { status: 'ok' };
  });
  router.get('/readyz', async (ctx) => {
    try {
      await withQueueDeadline(redis.ping(), timeoutMs);
      ctx.body = { status: 'ready', redis: 'ok' };
    } catch {
      ctx.status = 503;
      ctx.body = { status: 'unavailable', redis: 'unreachable' };
    }
  });
  return router;
}
