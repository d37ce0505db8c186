import type { Telemetry } from 'bullmq';

/**
 * What the apps' code calls to trace, without importing OpenTelemetry: with no OTLP endpoint configured,
 * nothing installs hooks, every call below is a plain function call that does nothing, and no
 * `@opentelemetry` module is ever loaded (`startTracing` loads the SDK only when an endpoint is set, and it
 * installs the hooks). Attribute values are ids, kinds, counts and outcomes: never an email, a phone, a
 * name or a CV byte.
 */
export type SpanAttributes = Record<string, string | number | boolean | undefined>;

/** A span of another trace (as W3C trace context ids), to link to or to start under. */
export type TraceLink = { traceId: string; spanId: string; traceFlags: number };

/**
 * The span a `withSpan` or `withServerSpan` callback runs in. `recording` is false for a span sampled out
 * (and with tracing off): its methods do nothing, so a caller need not build attributes for it.
 */
export type SpanHandle = {
  readonly recording: boolean;
  setAttributes(attributes: SpanAttributes): void;
  updateName(name: string): void;
};

export type SpanOptions = {
  attributes?: SpanAttributes;
  /** Spans of other traces this one concerns (the submissions an Airtable request writes). */
  links?: (TraceLink | undefined)[];
  /** Start in this span's trace instead of the active one. */
  parent?: TraceLink | undefined;
  kind?: 'internal' | 'client';
};

/** An incoming request's headers, for the caller's `traceparent`. */
export type RequestHeaders = Record<string, string | string[] | undefined>;

export type TracingHooks = {
  inSpan<T>(name: string, options: SpanOptions, fn: (span: SpanHandle) => Promise<T>): Promise<T>;
  inServerSpan<T>(
    headers: RequestHeaders,
    name: string,
    attributes: SpanAttributes,
    fn: (span: SpanHandle) => Promise<T>,
  ): Promise<T>;
  annotate(attributes: SpanAttributes): void;
  activeLink(): TraceLink | undefined;
  linkFromJob(metadata: string | undefined): TraceLink | undefined;
  requestJobContext(): string | undefined;
  queueTelemetry: Telemetry;
};

/** The handle of a span not recorded (sampled out, or tracing off): every call does nothing. */
export const NO_SPAN: SpanHandle = { recording: false, setAttributes() {}, updateName() {} };
let hooks: TracingHooks | undefined;

/** Called once, by the tracing SDK module when it starts. */
export function installTracingHooks(installed: TracingHooks): void {
  hooks = installed;
}

/** True once tracing started in this process: code that only traces (a middleware) need not be mounted. */
export function tracingStarted(): boolean {
  return hooks !== undefined;
}

/** Runs `fn` in a child span of the active one (ended when `fn` settles; a throw marks it failed). */
export function withSpan<T>(name: string, options: SpanOptions, fn: (span: SpanHandle) => Promise<T>): Promise<T> {
  return hooks ? hooks.inSpan(name, options, fn) : fn(NO_SPAN);
}

/**
 * Runs `fn` in a server span for an incoming request: a new trace, or the caller's when it sent a W3C
 * `traceparent`. A new trace sampled out is decided before the SDK (head-sampling.ts): `fn` then runs in a
 * context that is not recorded, without a span.
 */
export function withServerSpan<T>(
  headers: RequestHeaders,
  name: string,
  attributes: SpanAttributes,
  fn: (span: SpanHandle) => Promise<T>,
): Promise<T> {
  return hooks ? hooks.inServerSpan(headers, name, attributes, fn) : fn(NO_SPAN);
}

/** Adds attributes to the active span (a request's span is annotated through its handle instead). */
export function annotateSpan(attributes: SpanAttributes): void {
  hooks?.annotate(attributes);
}

/** The active span, for a span elsewhere to link to. */
export function activeTraceLink(): TraceLink | undefined {
  return hooks?.activeLink();
}

/** The span that added a job, from the trace context BullMQ keeps in `job.opts.telemetry.metadata`. */
export function jobTraceLink(metadata: string | undefined): TraceLink | undefined {
  return hooks?.linkFromJob(metadata);
}

/**
 * Inside an incoming request (`withServerSpan`), the trace context a job added now carries (BullMQ's
 * `job.opts.telemetry.metadata`): the request's own span, so the worker's attempts sit under the request, or,
 * sampled out, the context that says so, so the worker leaves the job out too. Undefined anywhere else (and
 * with tracing off), where BullMQ's `queue.add` makes its producer span as usual. Such a job is made with
 * `Job.create`, what `queue.add` calls inside that span: a request's add is timed on the request's span
 * instead (docs/tracing.md#what-it-costs).
 */
export function requestJobContext(): string | undefined {
  return hooks?.requestJobContext();
}

/** BullMQ's `telemetry` option for a Queue or Worker: undefined (no tracing, no cost) unless tracing started. */
export function queueTelemetry(): Telemetry | undefined {
  return hooks?.queueTelemetry;
}
