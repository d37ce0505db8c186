import { SUBMISSION_ENDPOINTS } from '@forms/schemas';
import { createSpamCounters, registerSpamMetrics } from '@forms/spam-filter';
import { Counter, collectDefaultMetrics, Histogram, Registry } from 'prom-client';
import { ERROR_KINDS } from './error-kind.ts';

/**
 * The worker's Prometheus metrics, one registry per worker (tests run several in one process). Every
 * observation is in memory; none costs a Redis or network call. Served by `serveMetrics` on the worker's
 * own port (docs/operations.md#metrics: why a port and not a push through Redis).
 */
export function createWorkerMetrics() {
  const registry = new Registry();
  registry.setDefaultLabels({ app: 'worker' });
  collectDefaultMetrics({ register: registry });
  const failures = new Counter({
    name: 'forms_job_failures_total',
    help: 'Jobs that ended in the failed set, by kind and error kind (crm_rejected, invalid_payload, retries_exhausted)',
    labelNames: ['kind', 'error_kind'] as const,
    registers: [registry],
  });
  // Every series starts at 0: Prometheus's increase() cannot see a counter's first step when its series is
  // born at 1, so the first job to reach the failed set would not fire FormsRetriesExhausted.
  for (const { kind } of SUBMISSION_ENDPOINTS)
    for (const error_kind of ERROR_KINDS) failures.inc({ kind, error_kind }, 0);
  // The judge's verdicts, under the names the gateway gave them when it judged (the gateway still counts the honeypot).
  const spamCounters = createSpamCounters();
  registerSpamMetrics(registry, spamCounters);
  return {
    registry,
    failures,
    spamCounters,
    jobDuration: new Histogram({
      name: 'forms_job_duration_seconds',
      help: 'Time one attempt of a job took in the worker (CV finalising plus the CRM write), by kind and outcome',
      labelNames: ['kind', 'outcome'] as const,
      buckets: [0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30],
      registers: [registry],
    }),
    deliveryDelay: new Histogram({
      name: 'forms_delivery_delay_seconds',
      help: 'End-to-end delay from acceptance at the gateway to the CRM write, by kind',
      labelNames: ['kind'] as const,
      buckets: [0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30, 60, 300, 900, 3600, 14_400],
      registers: [registry],
    }),
    retries: new Counter({
      name: 'forms_job_retries_total',
      help: 'Failed attempts that will be retried on the backoff schedule, by kind',
      labelNames: ['kind'] as const,
      registers: [registry],
    }),
    crmWrites: new Counter({
      name: 'forms_crm_writes_total',
      help: 'Submissions handed to the CRM driver, by outcome (ok, error); Airtable batches them into requests',
      labelNames: ['crm', 'outcome'] as const,
      registers: [registry],
    }),
    crmRequests: new Counter({
      name: 'forms_crm_requests_total',
      help: 'HTTP requests to the CRM by status (Airtable: 200, 422, 429, 503, …, network, timeout)',
      labelNames: ['crm', 'status'] as const,
      registers: [registry],
    }),
    crmRateLimited: new Counter({
      name: 'forms_crm_rate_limited_total',
      help: '429 answers from the CRM (each pauses the whole base)',
      labelNames: ['crm'] as const,
      registers: [registry],
    }),
  };
}

export type WorkerMetrics = ReturnType<typeof createWorkerMetrics>;
