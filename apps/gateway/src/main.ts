import { pino } from 'pino';
import { loadConfig } from './config.ts';
import { startGateway } from './start-gateway.ts';

const config = loadConfig();
const logger = pino({ level: config.logLevel });
const gateway = await startGateway(config, logger);
logger.info(`gateway listening on ${gateway.url}`);

let stopping = false;
async function shutdown(signal: string) {
  if (stopping) return;
  stopping = true;
  logger.info({ signal }, 'gateway stopping: no new connections, finishing in-flight requests');
  const deadline = setTimeout(() => {
    logger.error('gateway did not stop within 10 s; exiting');
    process.exit(1);
  }, 10_000);
  deadline.unref();
  await gateway.stop();
  process.exit(0);
}
process.on('SIGTERM', () => void shutdown('SIGTERM'));
process.on('SIGINT', () => void shutdown('SIGINT'));
