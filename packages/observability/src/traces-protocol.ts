/**
 * OTLP/HTTP with JSON bodies unless a protocol is chosen (OTEL_EXPORTER_OTLP_TRACES_PROTOCOL or
 * OTEL_EXPORTER_OTLP_PROTOCOL, `http/protobuf` for a backend that takes no JSON): the SDK's protobuf encoder
 * costs a sampled request about twice what JSON does (docs/tracing.md#what-it-costs). Written into the
 * variables the SDK reads, before it starts, so a protocol the operator names is the SDK's to read as before.
 */
export function defaultTracesProtocol(env: NodeJS.ProcessEnv): void {
  if (!env.OTEL_EXPORTER_OTLP_TRACES_PROTOCOL?.trim() && !env.OTEL_EXPORTER_OTLP_PROTOCOL?.trim())
    env.OTEL_EXPORTER_OTLP_TRACES_PROTOCOL = 'http/json';
}
