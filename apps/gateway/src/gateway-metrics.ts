import cluster from 'node:cluster';
import { airtableBaseFaultKey, parseAirtableBaseFault } from '@forms/schemas';
import { registerSpamMetrics, type SpamCounters } from '@forms/spam-filter';
import type { Queue } from 'bullmq';
import { Cluster, type Redis } from 'ioredis';
import { Counter, collectDefaultMetrics, Gauge, Histogram, Registry } from 'prom-client';
import { metricsOfAllProcesses, sendMetricsToPrimary } from './gateway-processes.ts';
import { withRedisDeadline } from './redis-deadline.ts';
import type { AbuseCounters } from './submissions/abuse-counters.ts';

const QUEUE_STATES = ['waiting', 'prioritized', 'active', 'delayed', 'failed', 'completed'] as const;

/**
 * The gateway's Prometheus metrics, one registry per app. Request-path metrics are in-memory observations
 * (a counter and a histogram per request, no Redis call); queue depth is read from Redis only when
 * Prometheus scrapes (one bounded getJobCounts per scrape, whatever the traffic).
 */
export function createGatewayMetrics({
  queue,
  timeoutMs,
  counters,
  spamCounters,
  redis,
  airtableBaseId,
  keylessWorkersKey,
  secretDiffersKeys,
}: {
  queue: Queue;
  timeoutMs: number;
  /** What the abuse controls turned away, counted by the submission wing; read at scrape time. */
  counters: AbuseCounters;
  /** What the spam layers decided, counted by the submission wing; read at scrape time. */
  spamCounters?: SpamCounters | undefined;
  /** The queue's Redis, for its memory figures and the CRM's pause at scrape time (alert rules read them). */
  redis?: Redis | Cluster | undefined;
  /** The Airtable base the worker writes to, if any: its standing fault is `forms_crm_paused`. */
  airtableBaseId?: string | undefined;
  /** Where workers holding every job for want of ERASURE_KEY keep their word (`erasureKeys`). */
  keylessWorkersKey?: string | undefined;
  /** By shared secret (ID_KEY, ERASURE_KEY): where processes whose value differs keep their word (`sharedSecretKeys`). */
  secretDiffersKeys?: Record<string, string> | undefined;
}) {
  const registry = new Registry();
  registry.setDefaultLabels({ app: 'gateway' });
  collectDefaultMetrics({ register: registry });
  // Under GATEWAY_PROCESSES > 1, the primary collects this process's metrics for every scrape.
  if (cluster.isWorker) sendMetricsToPrimary(registry);
  new Gauge({
    name: 'forms_queue_jobs',
    // Every process reads the same counts from Redis: summed over processes they would be multiplied.
    aggregator: 'max',
    help: 'Jobs in the queue by state, read from Redis at scrape time',
    labelNames: ['state'] as const,
    registers: [registry],
    async collect() {
      try {
        const counts = await withRedisDeadline(queue.getJobCounts(...QUEUE_STATES), timeoutMs);
        for (const state of QUEUE_STATES) this.set({ state }, counts[state] ?? 0);
      } catch {
        // Redis away: the series go stale rather than lie; readyz and the 503 counts say why.
      }
    },
  });
  new Gauge({
    name: 'forms_queue_oldest_waiting_seconds',
    aggregator: 'max',
    help: 'Age of the oldest job waiting in the fresh lane (not replays, which wait behind it on purpose), read from Redis at scrape time; 0 when none waits',
    registers: [registry],
    async collect() {
      try {
        const [oldest] = await withRedisDeadline(queue.getJobs(['wait'], 0, 0, true), timeoutMs);
        this.set(oldest ? Math.max(0, (Date.now() - oldest.timestamp) / 1000) : 0);
      } catch {
        // Stale rather than a lie, as above.
      }
    },
  });
  if (redis) {
    new Gauge({
      name: 'forms_redis_memory_bytes',
      aggregator: 'max',
      help: "The queue's Redis memory by kind (used, maxmemory; 0 maxmemory means no limit) and node, from INFO memory at scrape time",
      labelNames: ['kind', 'node'] as const,
      registers: [registry],
      async collect() {
        const nodes = redis instanceof Cluster ? redis.nodes('master') : [redis];
        for (const node of nodes) {
          try {
            const info = await withRedisDeadline(node.info('memory'), timeoutMs);
            const name = `${node.options.host ?? ''}:${node.options.port ?? ''}`;
            this.set({ kind: 'used', node: name }, Number(/used_memory:(\d+)/.exec(info)?.[1] ?? 0));
            this.set({ kind: 'maxmemory', node: name }, Number(/maxmemory:(\d+)/.exec(info)?.[1] ?? 0));
          } catch {
            // A node away: its series go stale; the target-down and 503 alerts say why.
          }
        }
      },
    });
  }
  if (redis && airtableBaseId) {
    new Gauge({
      name: 'forms_crm_paused',
      aggregator: 'max',
      help: 'Whether the worker paused the Airtable base for a credential or configuration fault (1) or not (0), read from Redis at scrape time',
      registers: [registry],
      async collect() {
        try {
          const raw = await withRedisDeadline(redis.get(airtableBaseFaultKey(airtableBaseId)), timeoutMs);
          this.set(parseAirtableBaseFault(raw) ? 1 : 0);
        } catch {
          // Stale rather than a lie.
        }
      },
    });
  }
  if (redis && keylessWorkersKey) {
    new Gauge({
      name: 'forms_workers_without_erasure_key',
      aggregator: 'max',
      help: 'Workers holding every delivery because ERASURE_KEY is not set while an erasure is recorded, read from Redis at scrape time',
      registers: [registry],
      async collect() {
        try {
          this.set(await withRedisDeadline(redis.zcount(keylessWorkersKey, Date.now(), '+inf'), timeoutMs));
        } catch {
          // Stale rather than a lie.
        }
      },
    });
  }
  if (redis && secretDiffersKeys) {
    new Gauge({
      name: 'forms_shared_secret_differs',
      aggregator: 'max',
      help: 'Processes whose shared secret (ID_KEY: gateways, ERASURE_KEY: workers) differs from the one recorded in Redis, by variable, read from Redis at scrape time',
      labelNames: ['variable'] as const,
      registers: [registry],
      async collect() {
        const now = Date.now();
        for (const [variable, key] of Object.entries(secretDiffersKeys)) {
          try {
            this.set({ variable }, await withRedisDeadline(redis.zcount(key, now, '+inf'), timeoutMs));
          } catch {
            // Stale rather than a lie.
          }
        }
      },
    });
  }
  new Counter({
    name: 'forms_submissions_turned_away_total',
    help: 'Submissions the abuse controls turned away, by reason: honeypot (answered like a success, kept in quarantine, not queued) or rate_limited (429)',
    labelNames: ['reason'] as const,
    registers: [registry],
    collect() {
      this.reset();
      this.inc({ reason: 'honeypot' }, counters.honeypotQuarantined);
      this.inc({ reason: 'rate_limited' }, counters.rateLimited);
    },
  });
  if (spamCounters) registerSpamMetrics(registry, spamCounters);
  return {
    registry,
    /** What a scrape gets: this process's metrics, or under GATEWAY_PROCESSES > 1 every process's, summed. */
    text: (): Promise<string> => (cluster.isWorker ? metricsOfAllProcesses() : registry.metrics()),
    requests: new Counter({
      name: 'forms_http_requests_total',
      help: 'HTTP requests answered, by route (the matched pattern), method and status',
      labelNames: ['route', 'method', 'status'] as const,
      registers: [registry],
    }),
    requestDuration: new Histogram({
      name: 'forms_http_request_duration_seconds',
      help: 'Time to answer, by route and method; for submission routes this is the ack latency',
      labelNames: ['route', 'method'] as const,
      buckets: [0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5],
      registers: [registry],
    }),
    enqueueDuration: new Histogram({
      name: 'forms_enqueue_duration_seconds',
      help: 'Time Redis took to confirm a submission job (queue.add), successful adds only',
      buckets: [0.0005, 0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1],
      registers: [registry],
    }),
    // A site's misconfiguration (submissions/note-refused-redirect.ts): the submission was kept all the same.
    formRedirectsRefused: new Counter({
      name: 'forms_form_redirects_refused_total',
      help: "Plain form posts whose _next or _error page FORM_REDIRECT_URLS does not allow, by field: each was judged on its own merits and answered with the gateway's own page",
      labelNames: ['field'] as const,
      registers: [registry],
    }),
    // A Redis transition ridden through inside the request (submissions/transition-hold.ts): changed only
    // on that path, never by an ordinary request.
    held: new Gauge({
      name: 'forms_submissions_held',
      aggregator: 'sum',
      help: 'Submission requests held now through a Redis transition (failover, restart, slot move), retried inside the request; bounded by REDIS_HOLD_MAX_REQUESTS',
      registers: [registry],
    }),
    heldBytes: new Gauge({
      name: 'forms_submissions_held_bytes',
      aggregator: 'sum',
      help: 'Bytes of the submissions held now through a Redis transition (their job payloads); bounded by REDIS_HOLD_MAX_BYTES',
      registers: [registry],
    }),
    holdDuration: new Histogram({
      name: 'forms_submission_hold_duration_seconds',
      help: 'How long a submission was held through a Redis transition, by outcome: stored (answered 200), gave_up (the hold ran out or Redis failed otherwise: 503), over_bound (the bound was full: 503 at once), shutdown (503 as the gateway stopped)',
      labelNames: ['outcome'] as const,
      buckets: [0.05, 0.1, 0.25, 0.5, 1, 2, 3, 5, 8, 10, 15, 30],
      registers: [registry],
    }),
  };
}

export type GatewayMetrics = ReturnType<typeof createGatewayMetrics>;
