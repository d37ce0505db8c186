import { startTracing } from '@forms/observability';

// Tracing starts before the gateway's modules load (the HTTP instrumentation must be in place before
// node:http is used); with no OTLP endpoint set it loads nothing. Submissions and the rest of /api/ start
// traces; health checks, scrapes and pages do not.
const tracing = await startTracing(
  { serviceName: 'forms-gateway', tracesRequest: (path) => path.startsWith('/api/') },
  process.env,
);
const { runGateway } = await import('./run-gateway.ts');
await runGateway(tracing);
