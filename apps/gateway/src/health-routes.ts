import {
  airtableBaseFaultKey,
  erasureKeys,
  keylessWorkersReason,
  parseAirtableBaseFault,
  type RedisSettings,
} from '@forms/schemas';
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
  settings,
  queueName,
}: {
  redis: ProducerRedis;
  timeoutMs: number;
  airtableBaseId: string | undefined;
  settings: Pick<RedisSettings, 'prefix'>;
  queueName: string;
}): Router {
  const keyless = erasureKeys(settings, queueName).keylessWorkers;
  const router = new Router();
  router.get('/healthz', (ctx) => {
    ctx.body = { status: 'ok' };
  });
  router.get('/readyz', async (ctx) => {
    try {
      await withRedisDeadline(redis.ping(), timeoutMs);
      const held = await withRedisDeadline(redis.zcount(keyless, Date.now(), '+inf'), timeoutMs);
      const deliveries = held > 0 ? { status: 'held', reason: keylessWorkersReason(held) } : { status: 'ok' };
      if (!airtableBaseId) {
        ctx.body = { status: 'ready', redis: 'ok', deliveries };
        return;
      }
      const fault = parseAirtableBaseFault(
        await withRedisDeadline(redis.get(airtableBaseFaultKey(airtableBaseId)), timeoutMs),
      );
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
