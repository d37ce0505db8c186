import { createLogger, type Tracing } from '@forms/observability';
import { exitProcess, stopOnSignals } from '@forms/runtime';
import { loadConfig } from './config.ts';
import { startWorker } from './start-worker.ts';

/** The worker's main, once tracing is set up. */
export async function runWorker(tracing: Tracing): Promise<void> {
  const config = loadConfig();
  const logger = createLogger({ level: config.logLevel, base: { app: 'worker' } });
  const worker = await startWorker(config, logger).catch((err: Error) => {
    logger.fatal(err.message);
    return exitProcess(1);
  });
  logger.info({ queue: config.queueName }, 'worker consuming');
  // Active jobs finish; past the deadline they are picked up again by the stalled check.
  stopOnSignals({
    logger,
    what: 'worker',
    deadlineMs: config.shutdownTimeoutMs,
    stop: async () => {
      await worker.stop();
      await tracing.stop();
    },
  });
}
