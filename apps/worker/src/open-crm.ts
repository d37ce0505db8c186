import type { Logger } from 'pino';
import type { WorkerConfig } from './config.ts';
import { createAirtableCrm } from './crm/airtable/airtable-crm.ts';
import type { Crm } from './crm/crm.ts';
import { createPostgresCrm } from './crm/postgres-crm.ts';
import { openDatabase } from './db/database.ts';
import { migrate } from './db/migrate.ts';
import type { WorkerMetrics } from './worker-metrics.ts';

/** Airtable when its key and base are set; else Postgres at DATABASE_URL; else the embedded PGlite. */
export async function openCrm(config: WorkerConfig, logger: Logger, metrics?: WorkerMetrics): Promise<Crm> {
  if (config.airtable) {
    const crm = createAirtableCrm({
      settings: config.airtable,
      redis: config.redis,
      queueName: config.queueName,
      logger,
      metrics,
    });
    logger.info(
      { crm: crm.name, baseId: config.airtable.baseId, requestsPerSecond: config.airtable.requestsPerSecond },
      'crm ready',
    );
    return crm;
  }
  const db = await openDatabase({
    databaseUrl: config.databaseUrl,
    dataDir: config.pgliteDir,
    timeouts: config.databaseTimeouts,
  });
  const applied = await migrate(db);
  logger.info({ crm: db.kind, applied }, 'crm ready');
  return createPostgresCrm(db);
}
