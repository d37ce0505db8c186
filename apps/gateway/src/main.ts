import '@forms/runtime/require-supported-node';
import { startTracing } from '@forms/observability';

// Tracing starts before the gateway's modules load; with no OTLP endpoint set it loads nothing. No HTTP
// instrumentation here (`outgoingHttpSpans`): a CV staged in S3 is our own `s3.put staged-cv` span, without
// a `PUT` under it, because the instrumentation loaded cost the request path far more (docs/tracing.md).
const tracing = await startTracing({ serviceName: 'forms-gateway', outgoingHttpSpans: false }, process.env);
const { runGateway } = await import('./run-gateway.ts');
await runGateway(tracing);
