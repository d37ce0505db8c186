import { airtableBaseFaultKey, keylessWorkersReason, parseAirtableBaseFault } from '@forms/schemas';
import Router from '@koa/router';
import { withRedisDeadline } from './redis-deadline.ts';
import type { ProducerRedis } from './submissions/queue.ts';

/**
 * `/healthz`: the process is up. `/readyz`: Redis answers, so submissions can be accepted; with Airtable as
 * the CRM, also whether the worker paused the base for a credential or configuration fault (still 200:
 * submissions queue and wait, and the answer names the variable to fix); and whether the workers deliver
 * (`deliveries: held` with the reason while any holds every job for want of ERASURE_KEY).
 */
export function healthRoutes({
  redis,
  timeoutMs,
  airtableBaseId,
  keylessWorkersKey,
}: {
  redis: ProducerRedis;
  timeoutMs: number;
  airtableBaseId: string | undefined;
  /** Where workers holding every job for want of ERASURE_KEY keep their word (`erasureKeys`). */
  keylessWorkersKey: string;
}): Router {
  const router = new Router();
  router.get('/healthz', (ctx) => {
    ctx.body = { status: 'ok' };
  });
  router.get('/readyz', async (ctx) => {
    try {
      // Both reads at once; either answering is Redis answering.
      const [held, faultText] = await withRedisDeadline(
        Promise.all([
          redis.zcount(keylessWorkersKey, Date.now(), '+inf'),
          airtableBaseId ? redis.get(airtableBaseFaultKey(airtableBaseId)) : null,
        ]),
        timeoutMs,
      );
      const deliveries = held > 0 ? { status: 'held', reason: keylessWorkersReason(held) } : { status: 'ok' };
      if (!airtableBaseId) {
        ctx.body = { status: 'ready', redis: 'ok', deliveries };
        return;
      }
      const fault = parseAirtableBaseFault(faultText);
      ctx.body = {
        status: 'ready',
        redis: 'ok',
        crm: fault ? { status: 'paused', fault } : { status: 'ok' },
        deliveries,
      };
    } catch {
      ctx.status = 503;
      ctx.body = { status: 'unavailable', redis: 'unreachable' };
    }
  });
  return router;
}
