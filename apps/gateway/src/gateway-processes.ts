import cluster, { type Worker } from 'node:cluster';
import { boundUrl, exitProcess } from '@forms/runtime';
import type { Logger } from 'pino';
import { AggregatorRegistry, type MetricObjectWithValues, type MetricValue, type Registry } from 'prom-client';

/**
 * Metrics travel between the primary and the gateway processes as messages of this type: a process asks
 * for a scrape (`scrape` → `scraped`), and the primary collects each listening process's metrics
 * (`collect` → `collected`).
 */
const METRICS_MESSAGE = 'forms:gateway-metrics';
type MetricsMessage = { type: typeof METRICS_MESSAGE; id: number } & (
  | { kind: 'scrape' }
  | { kind: 'scraped'; text?: string; error?: string }
  | { kind: 'collect' }
  | { kind: 'collected'; metrics: MetricObjectWithValues<MetricValue<string>>[] }
);
const isMetricsMessage = (message: unknown): message is MetricsMessage =>
  (message as MetricsMessage | null)?.type === METRICS_MESSAGE;
/** The gateway processes alive now (cluster.workers drops one once it has exited). */
const workers = () => Object.values(cluster.workers ?? {}).filter((w): w is Worker => w !== undefined);
/** A process that does not send its metrics within this is left out of the scrape. */
const COLLECT_TIMEOUT_MS = 2_000;

/**
 * The primary of GATEWAY_PROCESSES > 1: forks `count` gateway processes on one port (node:cluster; the
 * primary accepts connections and hands them to the processes in turn) and looks after them.
 * - A process that exits after it listened is replaced. One that exits before (Redis evicting, a setting
 *   refused) stops them all, and the primary exits 1, as a lone gateway would have.
 * - SIGTERM or SIGINT goes to every process; each drains as a lone gateway does (in-flight requests
 *   answered, then Redis closed), and the primary exits once all have: 0 if every one stopped cleanly.
 * - A scrape of /admin/metrics reaches one process, which asks the primary. The primary collects the
 *   metrics of every process that is listening (one still starting is not asked, one that does not answer
 *   within 2 s is left out) and prom-client's `AggregatorRegistry.aggregate` sums them (gauges that read
 *   Redis say `max`).
 */
export function runGatewayProcesses({
  count,
  logger,
  deadlineMs,
}: {
  count: number;
  logger: Logger;
  deadlineMs: number;
}) {
  const listened = new Set<number>();
  let announced = false;
  let stopping = false;
  let failed = false;

  cluster.on('listening', (worker, address) => {
    listened.add(worker.id);
    if (!announced && listened.size === count) {
      announced = true;
      logger.info(`gateway listening on ${boundUrl(address)} (${count} processes)`);
    }
  });
  cluster.on('exit', (worker, code, signal) => {
    const wasListening = listened.delete(worker.id);
    const how = signal ?? `code ${code}`;
    if (stopping) {
      // One still starting had nothing to drain: however the signal ended it, it stopped cleanly.
      if (wasListening && code !== 0) failed = true;
      logger.info(`gateway process ${worker.process.pid} stopped (${how})`);
      if (workers().length === 0) void exitProcess(failed ? 1 : 0);
    } else if (!wasListening) {
      logger.fatal(`gateway process ${worker.process.pid} exited (${how}) before it listened; stopping the others`);
      failed = true;
      stop('SIGTERM');
    } else {
      logger.error(`gateway process ${worker.process.pid} exited (${how}); starting another`);
      cluster.fork();
    }
  });

  const collecting = new Map<number, (metrics: MetricObjectWithValues<MetricValue<string>>[]) => void>();
  let nextCollect = 0;
  function collectFrom(worker: Worker) {
    const id = nextCollect++;
    return new Promise<MetricObjectWithValues<MetricValue<string>>[]>((resolve, reject) => {
      const timer = setTimeout(() => {
        collecting.delete(id);
        reject(new Error(`gateway process ${worker.process.pid} sent no metrics within ${COLLECT_TIMEOUT_MS} ms`));
      }, COLLECT_TIMEOUT_MS);
      collecting.set(id, (metrics) => {
        clearTimeout(timer);
        collecting.delete(id);
        resolve(metrics);
      });
      worker.send({ type: METRICS_MESSAGE, id, kind: 'collect' } satisfies MetricsMessage);
    });
  }
  async function scrape(): Promise<string> {
    const ready = workers().filter((w) => listened.has(w.id));
    const each = await Promise.allSettled(ready.map(collectFrom));
    for (const r of each) if (r.status === 'rejected') logger.warn({ err: r.reason }, 'metrics left out of a scrape');
    const metrics = each.flatMap((r) => (r.status === 'fulfilled' ? [r.value] : []));
    return AggregatorRegistry.aggregate(metrics).metrics();
  }
  cluster.on('message', (worker, message: unknown) => {
    if (!isMetricsMessage(message)) return;
    if (message.kind === 'collected') collecting.get(message.id)?.(message.metrics);
    if (message.kind !== 'scrape') return;
    const answer = (result: { text: string } | { error: string }) =>
      worker.send({ type: METRICS_MESSAGE, id: message.id, kind: 'scraped', ...result } satisfies MetricsMessage);
    scrape().then(
      (text) => answer({ text }),
      (err: Error) => answer({ error: err.message }),
    );
  });

  function stop(signal: NodeJS.Signals) {
    if (stopping) return;
    stopping = true;
    logger.info({ signal }, 'gateway stopping');
    for (const worker of workers()) worker.process.kill('SIGTERM');
    // Each process has its own deadline (deadlineMs); this one only covers a process that cannot even exit.
    setTimeout(() => {
      logger.error(`gateway processes did not stop within ${deadlineMs + 5_000} ms; exiting`);
      process.exit(1);
    }, deadlineMs + 5_000).unref();
    if (workers().length === 0) void exitProcess(failed ? 1 : 0);
  }
  process.on('SIGTERM', stop);
  process.on('SIGINT', stop);

  for (let i = 0; i < count; i++) cluster.fork();
}

/** In a gateway process under a primary: sends `registry`'s metrics whenever the primary collects them. */
export function sendMetricsToPrimary(registry: Registry): void {
  process.on('message', (message: unknown) => {
    if (!isMetricsMessage(message) || message.kind !== 'collect') return;
    void registry
      .getMetricsAsJSON()
      .then((metrics) =>
        process.send!({ type: METRICS_MESSAGE, id: message.id, kind: 'collected', metrics } satisfies MetricsMessage),
      );
  });
}

let nextScrape = 0;

/** In a gateway process under a primary: every process's metrics as one Prometheus text, via the primary. */
export function metricsOfAllProcesses(timeoutMs = 10_000): Promise<string> {
  const id = nextScrape++;
  return new Promise((resolve, reject) => {
    const timer = setTimeout(() => {
      process.off('message', onMessage);
      reject(new Error(`the gateway's primary sent no metrics within ${timeoutMs} ms`));
    }, timeoutMs);
    function onMessage(message: unknown) {
      if (!isMetricsMessage(message) || message.kind !== 'scraped' || message.id !== id) return;
      clearTimeout(timer);
      process.off('message', onMessage);
      if (message.text === undefined) reject(new Error(message.error ?? 'no metrics'));
      else resolve(message.text);
    }
    process.on('message', onMessage);
    process.send!({ type: METRICS_MESSAGE, id, kind: 'scrape' } satisfies MetricsMessage);
  });
}
