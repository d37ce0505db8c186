import { type AirtableBaseFault, airtableBaseFaultKey, parseAirtableBaseFault } from '@forms/schemas';
import type { WorkerRedis } from '../../create-worker-redis.ts';

export { type AirtableBaseFault, airtableBaseFaultKey };

/** The setting to fix for a status `classifyAirtableFailure` calls a base fault. */
function faultVariable(status: number): string {
  return status === 404 ? 'AIRTABLE_BASE_ID or the table names in AIRTABLE_MAPPING_FILE' : 'AIRTABLE_API_KEY';
}

/**
 * Records the fault (keeping `since` when the same fault stands), expiring after `ttlMs` unless a probe
 * meets it again, so a fleet that stopped does not leave a stale fault behind. Returns true when it is new.
 */
async function recordBaseFault(
  redis: WorkerRedis,
  key: string,
  fault: Pick<AirtableBaseFault, 'status' | 'type'>,
  ttlMs: number,
): Promise<boolean> {
  const now = new Date().toISOString();
  const previous = parseAirtableBaseFault(await redis.get(key));
  const same = previous?.status === fault.status && previous.type === fault.type;
  const stored: AirtableBaseFault = {
    ...fault,
    variable: faultVariable(fault.status),
    since: same ? previous.since : now,
    checkedAt: now,
  };
  await redis.set(key, JSON.stringify(stored), 'PX', Math.max(1, Math.round(ttlMs)));
  return !same;
}

/** Clears the fault once a request went through; true when there was one. */
async function clearBaseFault(redis: WorkerRedis, key: string): Promise<boolean> {
  return (await redis.del(key)) > 0;
}

/** The fault standing on a base, or undefined when it is healthy (for readiness, metrics and ops). */
export async function readAirtableBaseFault(
  redis: WorkerRedis,
  baseId: string,
  keyPrefix = 'airtable',
): Promise<AirtableBaseFault | undefined> {
  return parseAirtableBaseFault(await redis.get(airtableBaseFaultKey(baseId, keyPrefix)));
}

export type BaseFaultWatch = {
  /** A request to `table` met a base fault: record it, log it (an error the first time), for `ttlMs`. */
  met(table: string, err: { status: number; type: string; message: string }, ttlMs: number): Promise<void>;
  /** A request to `table` went through: clears the fault this process met there, if any. */
  cleared(table: string): Promise<void>;
};

/**
 * This process's view of its base's fault: it writes the shared state and logs the change, and costs no
 * Redis call on the healthy path (only a process that met a fault clears it, on its next success there).
 */
export function watchBaseFault({
  redis,
  baseId,
  logger,
}: {
  redis: WorkerRedis;
  baseId: string;
  logger: {
    error(o: object, msg: string): void;
    warn(o: object, msg: string): void;
    info(o: object, msg: string): void;
  };
}): BaseFaultWatch {
  const key = airtableBaseFaultKey(baseId);
  let metAt: string | undefined;
  return {
    async met(table, err, ttlMs) {
      metAt = table;
      const variable = faultVariable(err.status);
      const context = { baseId, table, status: err.status, type: err.type, err: err.message, variable };
      let isNew = true;
      try {
        isNew = await recordBaseFault(redis, key, err, ttlMs);
      } catch (redisErr) {
        logger.warn({ err: (redisErr as Error).message }, 'airtable: could not record the base fault in Redis');
      }
      if (isNew)
        logger.error(
          context,
          `airtable answered ${err.status}: fix ${variable}; the base is paused and jobs are kept, probing every ${ttlMs / 3} ms`,
        );
      else logger.warn(context, 'airtable base still refused; probing again later');
    },
    async cleared(table) {
      if (metAt !== table) return;
      metAt = undefined;
      try {
        if (await clearBaseFault(redis, key)) logger.info({ baseId, table }, 'airtable base answers again: resumed');
      } catch (redisErr) {
        logger.warn({ err: (redisErr as Error).message }, 'airtable: could not clear the base fault in Redis');
      }
    },
  };
}
