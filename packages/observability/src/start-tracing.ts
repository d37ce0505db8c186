import { tracingEnabled } from './tracing-enabled.ts';

export type Tracing = {
  /** Sends the spans still buffered, bounded: a collector that is down or hanging never holds up an exit. */
  stop(): Promise<void>;
};

export type TracingOptions = {
  /** `service.name` unless OTEL_SERVICE_NAME (or OTEL_RESOURCE_ATTRIBUTES) says otherwise. */
  serviceName: string;
  /**
   * A client span for every outgoing HTTP call inside a trace (the S3 requests), from the SDK's HTTP
   * instrumentation; true unless false. The gateway says false: with the instrumentation loaded, its
   * processes fell into a garbage-collection state that promoted nearly all a request allocates, tracing
   * sampling nothing or everything (docs/tracing.md#what-it-costs).
   */
  outgoingHttpSpans?: boolean;
};

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
