import { airtableBaseFaultKey, parseAirtableBaseFault } from '@forms/schemas';
import Router from '@koa/router';
import { withRedisDeadline } from './redis-deadline.ts';
import type { ProducerRedis } from './submissions/queue.ts';

/**
 * `/healthz`: the process is up. `/readyz`: Redis answers, so submissions can be accepted; with Airtable as
 * the CRM, also whether the worker paused the base for a credential or configuration fault (still 200:
 * submissions queue and wait, and the answer names the variable to fix).
 */
export function healthRoutes({
  redis,
  timeoutMs,
  airtableBaseId,
}: {
  redis: ProducerRedis;
  timeoutMs: number;
  airtableBaseId: string | undefined;
}): Router {
  const router = new Router();
  router.get('/healthz', (ctx) => {
    ctx.body = { status: 'ok' };
  });
  router.get('/readyz', async (ctx) => {
    try {
      await withRedisDeadline(redis.ping(), timeoutMs);
      if (!airtableBaseId) {
        ctx.body = { status: 'ready', redis: 'ok' };
        return;
      }
      const fault = parseAirtableBaseFault(
        await withRedisDeadline(redis.get(airtableBaseFaultKey(airtableBaseId)), timeoutMs),
      );
      ctx.body = { status: 'ready', redis: 'ok', crm: fault ? { status: 'paused', fault } : { status: 'ok' } };
    } catch {
      ctx.status = 503;
      ctx.body = { status: 'unavailable', redis: 'unreachable' };
    }
  });
  return router;
}
