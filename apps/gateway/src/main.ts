import { createLogger } from '@forms/observability';
import { stopOnSignals } from '@forms/runtime';
import { loadConfig } from './config.ts';
import { startGateway } from './start-gateway.ts';

const config = loadConfig();
const logger = createLogger({ level: config.logLevel, base: { app: 'gateway' } });
const gateway = await startGateway(config, logger).catch((err: Error) => {
  logger.fatal(err.message);
  process.exit(1);
});
logger.info(`gateway listening on ${gateway.url}`);
// In-flight requests finish; new connections are refused.
stopOnSignals({ logger, what: 'gateway', deadlineMs: 10_000, stop: gateway.stop });
