import * as v from 'valibot';

/** GET /healthz: the process is up. */
export const HealthSchema = v.object({ status: v.literal('ok') });

/** GET /readyz: whether Redis answers (200 ready, 503 unavailable). */
export const ReadinessSchema = v.object({
  status: v.picklist(['ready', 'unavailable']),
  redis: v.picklist(['ok', 'unreachable']),
});
