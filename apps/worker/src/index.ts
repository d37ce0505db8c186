export { loadConfig, type WorkerConfig } from './config.ts';
export { createWorkerRedis, type WorkerRedis } from './create-worker-redis.ts';
export { type AirtableCrm, type AirtableSettings, createAirtableCrm } from './crm/airtable/airtable-crm.ts';
export { type AirtableMapping, loadAirtableMapping, toAirtableWrite } from './crm/airtable/airtable-mapping.ts';
export {
  type AirtableBaseFault,
  airtableBaseFaultKey,
  readAirtableBaseFault,
} from './crm/airtable/base-fault.ts';
export {
  type Crm,
  type DeliveredCv,
  type DeliveredSubmission,
  type DeliveryResult,
  deliveredSpamVerdict,
  isContactKind,
  PermanentCrmError,
  type SpamMarkTarget,
  submissionEmail,
} from './crm/crm.ts';
export { createPostgresCrm } from './crm/postgres-crm.ts';
export { type Database, openDatabase, openPglite, openPostgres } from './db/database.ts';
export { lockDataDir } from './db/lock-data-dir.ts';
export { migrate } from './db/migrate.ts';
export { deliverSubmission } from './handlers/deliver-submission.ts';
export { type LocalSettings, readLocalSettings, withLocalSettings, writeLocalSettings } from './local-settings.ts';
export { openCrm } from './open-crm.ts';
export {
  EraseIncomplete,
  EraseOutOfReach,
  EraseRefused,
  type EraseReport,
  type Eraser,
  erasableAddress,
  erasePerson,
  findJobs,
  holdsAddress,
} from './privacy/erase-person.ts';
export { expireCvs } from './privacy/expire-cvs.ts';
export { openEraser, openStandaloneEraser } from './privacy/open-eraser.ts';
export {
  CV_RETENTION_EVERY_MS,
  CV_RETENTION_SCHEDULER,
  maintenanceQueueName,
} from './privacy/schedule-cv-retention.ts';
export { SPAM_MARK_JOB, type SpamMarkResult } from './run-maintenance.ts';
export { serveMetrics } from './serve-metrics.ts';
export { type RunningWorker, startWorker } from './start-worker.ts';
export { createWorker } from './worker.ts';
export { createWorkerMetrics, type WorkerMetrics } from './worker-metrics.ts';
