/**
 * Tracing is on when an OTLP endpoint is configured (the standard variables: the traces endpoint, or the
 * base endpoint) and the SDK is not disabled. The one place this is decided.
 */
export function tracingEnabled(env: Record<string, string | undefined>): boolean {
  const endpoint = env.OTEL_EXPORTER_OTLP_TRACES_ENDPOINT || env.OTEL_EXPORTER_OTLP_ENDPOINT;
  return !!endpoint?.trim() && env.OTEL_SDK_DISABLED?.trim().toLowerCase() !== 'true';
}
