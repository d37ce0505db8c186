/** What `startTracing` takes and gives; its SDK half (otel-sdk.ts, loaded only when on) shares them. */
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
