import '@forms/runtime/require-supported-node';
import { startTracing } from '@forms/observability';

// Tracing starts before the gateway's modules load (the HTTP instrumentation must be in place before the
// S3 client takes node:http); with no OTLP endpoint set it loads nothing.
const tracing = await startTracing({ serviceName: 'forms-gateway' }, process.env);
const { runGateway } = await import('./run-gateway.ts');
await runGateway(tracing);
