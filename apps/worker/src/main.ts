import '@forms/runtime/require-supported-node';
import { startTracing } from '@forms/observability';

// Tracing starts before the worker's modules load (the HTTP instrumentation must be in place before the S3
// client takes node:http); with no OTLP endpoint set it loads nothing. Only jobs start traces.
const tracing = await startTracing({ serviceName: 'forms-worker' }, process.env);
const { runWorker } = await import('./run-worker.ts');
await runWorker(tracing);
