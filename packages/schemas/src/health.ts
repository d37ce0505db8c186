import * as v from 'valibot';
import { AirtableBaseFaultSchema } from './airtable-base-fault.ts';

/** GET /healthz: the process is up. */
export const HealthSchema = v.object({ status: v.literal('ok') });

/**
 * GET /readyz: whether Redis answers (200 ready, 503 unavailable). With Airtable as the CRM, `crm` also says
 * whether the worker has paused the base for a credential or configuration fault: the gateway stays ready
 * (submissions are queued and wait), but ops should fix the variable it names. `deliveries` says whether
 * the workers deliver: `held`, with the reason, while any worker holds every job (it lacks ERASURE_KEY while
 * an erasure is recorded, or its ERASURE_KEY differs from the recorded one). The gateway itself stays ready:
 * it accepts, and the submissions wait. It answers 503 `unavailable` with a `reason` naming the variable
 * while its own ID_KEY differs from the one the other gateways recorded (it takes no submission then).
 */
export const ReadinessSchema = v.object({
  status: v.picklist(['ready', 'unavailable']),
  redis: v.picklist(['ok', 'unreachable']),
  reason: v.optional(
    v.pipe(
      v.string(),
      v.description('Why this process is not ready while Redis answers (a shared secret that differs, named)'),
    ),
  ),
  crm: v.optional(
    v.object({
      status: v.picklist(['ok', 'paused']),
      fault: v.optional(AirtableBaseFaultSchema),
    }),
  ),
  deliveries: v.optional(
    v.pipe(
      v.object({
        status: v.picklist(['ok', 'held']),
        reason: v.optional(v.string()),
      }),
      v.description(
        'Whether the workers deliver: `held` while some hold every job (no ERASURE_KEY while an erasure is recorded, or one that differs from the recorded one), with the reason',
      ),
    ),
  ),
});
