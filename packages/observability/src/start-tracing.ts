import type { Tracing, TracingOptions } from './tracing.ts';
import { tracingEnabled } from './tracing-enabled.ts';

const OFF: Tracing = { stop: async () => {} };

/**
 * Starts OpenTelemetry when an OTLP endpoint is configured; otherwise does nothing and loads nothing of it.
 * Everything else is the SDK's own reading of the standard `OTEL_*` variables (sampler, protocol, headers,
 * batch delays, timeouts). Call it first in a process's main, before importing the rest: the HTTP
 * instrumentation (outgoing calls, for S3), where on, must be in place before the S3 client takes `node:http`.
 */
export async function startTracing(options: TracingOptions, env = process.env): Promise<Tracing> {
  if (!tracingEnabled(env)) return OFF;
  const { startOtelSdk } = await import('./otel-sdk.ts');
  return startOtelSdk(options);
}
