import cluster from 'node:cluster';
import { createLogger, type Tracing } from '@forms/observability';
import { exitProcess, stopOnSignals } from '@forms/runtime';
import { loadConfig } from './config.ts';
import { runGatewayProcesses } from './gateway-processes.ts';
import { startGateway } from './start-gateway.ts';

/** The gateway's main, once tracing is set up: one process, or a primary and its gateway processes. */
export async function runGateway(tracing: Tracing): Promise<void> {
  const config = loadConfig();
  const logger = createLogger({ level: config.logLevel, base: { app: 'gateway' } });
  // In-flight requests finish; new connections are refused.
  const deadlineMs = 10_000;
  if (config.processes > 1 && cluster.isPrimary) {
    runGatewayProcesses({ count: config.processes, logger, deadlineMs });
    return;
  }
  const gateway = await startGateway(config, logger).catch((err: Error) => {
    logger.fatal(err.message);
    return exitProcess(1);
  });
  logger.info(cluster.isWorker ? `gateway process ${process.pid} listening` : `gateway listening on ${gateway.url}`);
  stopOnSignals({
    logger,
    what: 'gateway',
    deadlineMs,
    stop: async () => {
      await gateway.stop();
      await tracing.stop();
    },
  });
}
