import type { Logger } from 'pino';
import { exitProcess } from './exit-process.ts';

/**
 * The one shutdown sequence of every process (gateway, worker, `pnpm start`): on SIGTERM or SIGINT, run
 * `stop` once (it stops parts in reverse order of starting), then exit 0; if it has not finished within
 * `deadlineMs`, exit 1 anyway (work left unfinished is safe: jobs run again, clients retry).
 */
export function stopOnSignals({
  logger,
  what,
  deadlineMs,
  stop,
}: {
  logger: Logger;
  what: string;
  deadlineMs: number;
  stop: () => Promise<void>;
}): void {
  let stopping = false;
  async function shutdown(signal: NodeJS.Signals) {
    if (stopping) return;
    stopping = true;
    logger.info({ signal }, `${what} stopping`);
    setTimeout(() => {
      logger.error(`${what} did not stop within ${deadlineMs} ms; exiting (unfinished work will run again)`);
      process.exit(1);
    }, deadlineMs).unref();
    try {
      await stop();
    } catch (err) {
      logger.error({ err }, `${what}: error while stopping`);
      await exitProcess(1);
    }
    await exitProcess(0);
  }
  process.on('SIGTERM', (signal) => void shutdown(signal));
  process.on('SIGINT', (signal) => void shutdown(signal));
}
