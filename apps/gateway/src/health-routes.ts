import {
  airtableBaseFaultKey,
  keylessWorkersReason,
  parseAirtableBaseFault,
  secretDiffersReason,
} from '@forms/schemas';
import Router from '@koa/router';
import { withRedisDeadline } from './redis-deadline.ts';
import type { ProducerRedis } from './submissions/queue.ts';

/**
 * `/healthz`: the process is up. `/readyz`: Redis answers, so submissions can be accepted; with Airtable as
 * the CRM, also whether the worker paused the base for a credential or configuration fault (still 200:
 * submissions queue and wait, and the answer names the variable to fix); and whether the workers deliver
 * (`deliveries: held` with the reason while any holds every job for want of ERASURE_KEY, or because its
 * ERASURE_KEY differs from the recorded one). 503 with the reason while this process is not ready
 * (`notReady`: its ID_KEY differs from the other gateways'; under `pnpm start`, its worker holds every job).
 */
export function healthRoutes({
  redis,
  timeoutMs,
  airtableBaseId,
  keylessWorkersKey,
  erasureKeyDiffersKey,
  notReady = () => undefined,
}: {
  redis: ProducerRedis;
  timeoutMs: number;
  airtableBaseId: string | undefined;
  /** Where workers holding every job for want of ERASURE_KEY keep their word (`erasureKeys`). */
  keylessWorkersKey: string;
  /** Where workers whose ERASURE_KEY differs keep their word (`sharedSecretKeys`). */
  erasureKeyDiffersKey: string;
  notReady?: (() => string | undefined) | undefined;
}): Router {
  const router = new Router();
  router.get('/healthz', (ctx) => {
    ctx.body = { status: 'ok' };
  });
  router.get('/readyz', async (ctx) => {
    try {
      // The reads at once; any answering is Redis answering.
      const now = Date.now();
      const [keyless, differing, faultText] = await withRedisDeadline(
        Promise.all([
          redis.zcount(keylessWorkersKey, now, '+inf'),
          redis.zcount(erasureKeyDiffersKey, now, '+inf'),
          airtableBaseId ? redis.get(airtableBaseFaultKey(airtableBaseId)) : null,
        ]),
        timeoutMs,
      );
      const reasons = [
        ...(keyless > 0 ? [keylessWorkersReason(keyless)] : []),
        ...(differing > 0 ? [secretDiffersReason('ERASURE_KEY', `${differing} worker(s)`)] : []),
      ];
      const deliveries = reasons.length > 0 ? { status: 'held', reason: reasons.join('; ') } : { status: 'ok' };
      const reason = notReady();
      if (reason) ctx.status = 503;
      const status = reason ? { status: 'unavailable', redis: 'ok', reason } : { status: 'ready', redis: 'ok' };
      if (!airtableBaseId) {
        ctx.body = { ...status, deliveries };
        return;
      }
      const fault = parseAirtableBaseFault(faultText);
      ctx.body = { ...status, crm: fault ? { status: 'paused', fault } : { status: 'ok' }, deliveries };
    } catch {
      ctx.status = 503;
      ctx.body = { status: 'unavailable', redis: 'unreachable' };
    }
  });
  return router;
}
