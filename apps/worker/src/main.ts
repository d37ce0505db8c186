import { pino } from 'pino';
import { loadConfig } from './config.ts';
import { startWorker } from './start-worker.ts';

const config = loadConfig();
const logger = pino({ level: config.logLevel });
const worker = await startWorker(config, logger);
logger.info({ queue: config.queueName }, 'worker consuming');

let stopping = false;
async function shutdown(signal: string) {
  if (stopping) return;
  stopping = true;
  logger.info({ signal }, 'worker stopping: finishing active jobs');
  // Past the deadline the process exits anyway; its unfinished jobs are picked up again by the stalled check.
  const deadline = setTimeout(() => {
    logger.error(`worker did not stop within ${config.shutdownTimeoutMs} ms; exiting, active jobs will be retried`);
    process.exit(1);
  }, config.shutdownTimeoutMs);
  deadline.unref();
  await worker.stop();
  process.exit(0);
}
process.on('SIGTERM', () => void shutdown('SIGTERM'));
process.on('SIGINT', () => void shutdown('SIGINT'));
