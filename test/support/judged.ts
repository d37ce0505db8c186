import type { Queue } from 'bullmq';
import type { MetricFamily } from 'parse-prometheus-text-format';
import type { Pipeline } from './pipeline.ts';
import { sampleValue, scrape } from './prometheus.ts';
import { eventually } from './wait.ts';

/**
 * The worker judges after the answer: waits until it has taken every job of the queue to its end (delivered,
 * or held: it then leaves the queue for the quarantine), and answers how many it delivered.
 */
export async function judged(queue: Queue, timeoutMs = 15_000): Promise<{ delivered: number }> {
  let delivered = 0;
  await eventually(
    async () => {
      const counts = await queue.getJobCounts('waiting', 'active', 'delayed', 'prioritized');
      if (Object.values(counts).some((n) => n > 0)) return false;
      const completed = await queue.getJobs(['completed']);
      delivered = completed.length;
      return completed.every((j) => !(j.returnvalue as { held?: boolean } | null)?.held);
    },
    { timeoutMs, explain: () => `queue ${queue.name} still has jobs to judge` },
  );
  return { delivered };
}

/**
 * A spam metric as ops read it: the sum over the apps that count it (the gateway the honeypot, the worker
 * every verdict of its judge). The pipeline's worker serves its metrics when METRICS_PORT is set.
 */
export async function spamMetric(
  pipeline: Pipeline,
  token: string,
  name: string,
  labels: Record<string, string>,
): Promise<number> {
  const urls = [`${pipeline.gateway.url}/admin/metrics`, pipeline.worker?.metricsUrl].filter((u) => u !== undefined);
  const families: MetricFamily[][] = await Promise.all(urls.map(async (url) => (await scrape(url, token)).families));
  return families.reduce((sum, f) => sum + sampleValue(f, name, labels), 0);
}
