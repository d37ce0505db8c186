export { loadConfig, type WorkerConfig } from './config.ts';
export { createWorker } from './worker.ts';
export { startWorker, openCrm, type RunningWorker } from './start-worker.ts';
export { deliverSubmission } from './handlers/deliver-submission.ts';
export { PermanentCrmError, isContactKind, submissionEmail, type Crm, type DeliveryResult } from './crm/crm.ts';
export { createPostgresCrm } from './crm/postgres-crm.ts';
export { openDatabase, openPostgres, openPglite, type Database } from './db/database.ts';
export { migrate } from './db/migrate.ts';
