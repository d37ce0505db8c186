import { pino, type Logger } from 'pino';
import { openObjectStorage } from '@forms/object-storage';
import type { WorkerConfig } from './config.ts';
import { createAirtableCrm } from './crm/airtable/airtable-crm.ts';
import type { Crm } from './crm/crm.ts';
import { createPostgresCrm } from './crm/postgres-crm.ts';
import { openDatabase } from './db/database.ts';
import { migrate } from './db/migrate.ts';
import { createWorker } from './worker.ts';

export type RunningWorker = { crm: Crm; stop: () => Promise<void> };

/**
 * Picks the CRM, migrates it, and starts consuming. `stop` lets active jobs finish, then closes the CRM.
 * Tests may hand in a CRM they also read from (an in-memory PGlite cannot be opened twice).
 */
export async function startWorker(
  config: WorkerConfig,
  logger: Logger = pino({ level: config.logLevel }),
  { crm: given }: { crm?: Crm } = {},
): Promise<RunningWorker> {
  const crm = given ?? (await openCrm(config, logger));
  const storage = config.storage
    ? await openObjectStorage(config.storage, { maxAttempts: 3, logger, whileAway: 'CV jobs will retry until it is back' })
    : undefined;
  const worker = createWorker({ config, crm, storage, logger });
  await worker.waitUntilReady();
  return {
    crm,
    async stop() {
      await worker.close();
      await crm.close();
      storage?.close();
    },
  };
}

/** Airtable when its key and base are set; else Postgres at DATABASE_URL; else the embedded PGlite. */
export async function openCrm(config: WorkerConfig, logger: Logger): Promise<Crm> {
  if (config.airtable) {
    const crm = createAirtableCrm({ settings: config.airtable, redisUrl: config.redisUrl, logger });
    logger.info({ crm: crm.name, baseId: config.airtable.baseId, requestsPerSecond: config.airtable.requestsPerSecond }, 'crm ready');
    return crm;
  }
  const db = await openDatabase({ databaseUrl: config.databaseUrl, dataDir: config.pgliteDir });
  const applied = await migrate(db);
  logger.info({ crm: db.kind, applied }, 'crm ready');
  return createPostgresCrm(db);
}
