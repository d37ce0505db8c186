import { setTimeout as sleep } from 'node:timers/promises';
/**
 * The OpenTelemetry SDK, loaded only by `startTracing` when an OTLP endpoint is configured. Traces only:
 * metrics stay on each app's Prometheus endpoint and logs on stdout, so the SDK's OTLP metrics and logs
 * exporters are not started whatever OTEL_METRICS_EXPORTER and OTEL_LOGS_EXPORTER say.
 */
import {
  type Context,
  context,
  createContextKey,
  isSpanContextValid,
  type Link,
  propagation,
  ROOT_CONTEXT,
  type Span,
  SpanKind,
  SpanStatusCode,
  TraceFlags,
  trace,
} from '@opentelemetry/api';
import { HttpInstrumentation } from '@opentelemetry/instrumentation-http';
import { defaultResource, resourceFromAttributes } from '@opentelemetry/resources';
import { NodeSDK } from '@opentelemetry/sdk-node';
import { RandomIdGenerator } from '@opentelemetry/sdk-trace';
import type { ContextManager, Telemetry, Tracer } from 'bullmq';
import { BullMQOTelSpan, BullMQOtel } from 'bullmq-otel';
import { headSampling, sampledBefore } from './head-sampling.ts';
import { defaultTracesProtocol } from './traces-protocol.ts';
import type { Tracing, TracingOptions } from './tracing.ts';
import {
  installTracingHooks,
  NO_SPAN,
  type SpanAttributes,
  type SpanHandle,
  type TraceLink,
  type TracingHooks,
} from './tracing-hooks.ts';

/** How long `stop` waits for the last spans to leave; the exporter's own timeout bounds each request too. */
const STOP_DEADLINE_MS = 2_000;

export function startOtelSdk({ serviceName, outgoingHttpSpans = true }: TracingOptions): Tracing {
  defaultTracesProtocol(process.env);
  const { rootRatio, sampler } = headSampling();
  const sdk = new NodeSDK({
    ...(sampler ? { sampler } : {}),
    // Under the detected resource, so OTEL_SERVICE_NAME and OTEL_RESOURCE_ATTRIBUTES override the name.
    resource: defaultResource().merge(resourceFromAttributes({ 'service.name': serviceName })),
    metricReaders: [],
    logRecordProcessors: [],
    // Outgoing calls only (S3's HEAD, GET, PUT, DELETE), and only inside a trace. The gateway's server
    // spans are its own middleware's (`traceRequests`): measured with `pnpm bench:gateway`, the
    // instrumentation's incoming side cost about 80 µs of CPU per request more, and it records the
    // client's address and user agent, which we do not want on spans.
    instrumentations: outgoingHttpSpans
      ? [new HttpInstrumentation({ disableIncomingRequestInstrumentation: true, requireParentforOutgoingSpans: true })]
      : [],
  });
  sdk.start();
  const tracer = trace.getTracer('forms');
  // The headers the configured propagators read (W3C's `traceparent` and `tracestate` by default).
  const propagated = propagation.fields();
  // W3C trace context (and W3C baggage) alone, as by default: a job's trace context is then a `traceparent`.
  const defaultPropagators = propagated.includes('traceparent') && propagated.every((f) => W3C_FIELDS.has(f));
  const ids = new RandomIdGenerator();
  const telemetry = queueTelemetry(defaultPropagators);
  const hooks: TracingHooks = {
    inSpan(name, options, fn) {
      const parent = options.parent ? trace.setSpanContext(ROOT_CONTEXT, options.parent) : context.active();
      // A child of a span sampled out would be sampled out too (every parent-based sampler says so): no
      // span, no context switch, no attributes built. With 10 % sampling that is 9 requests in 10.
      if (sampledOut(parent)) return fn(NO_SPAN);
      const links: Link[] = (options.links ?? []).flatMap((link) => (link ? [{ context: link }] : []));
      const kind = options.kind === 'client' ? SpanKind.CLIENT : SpanKind.INTERNAL;
      return tracer.startActiveSpan(name, { kind, links }, parent, async (span) => {
        if (options.attributes) setDefined(span, options.attributes);
        try {
          return await fn(handle(span));
        } catch (err) {
          span.recordException(err as Error);
          span.setStatus({ code: SpanStatusCode.ERROR, message: (err as Error).message });
          throw err;
        } finally {
          span.end();
        }
      });
    },
    inServerSpan(headers, name, attributes, fn) {
      const newTrace = rootRatio !== undefined && !propagated.some((field) => headers[field] !== undefined);
      // A new trace, sampled or not by the same chance the SDK's sampler would give it, decided here: one
      // sampled out (9 requests in 10 at 10 %) never enters the SDK. It runs in a context holding a span that
      // is not recorded, with ids of its own, so what runs under it knows: our spans are not made, and its
      // job carries that context (`requestJobContext`), for the worker's parent-based sampler to leave out.
      if (newTrace && Math.random() >= rootRatio) {
        const untraced = { traceId: ids.generateTraceId(), spanId: ids.generateSpanId(), traceFlags: TraceFlags.NONE };
        return context.with(trace.setSpan(SAMPLED_OUT_BEFORE, trace.wrapSpanContext(untraced)), () => fn(NO_SPAN));
      }
      const parent = newTrace ? SAMPLED_IN_BEFORE : propagation.extract(ROOT_CONTEXT, headers);
      return tracer.startActiveSpan(name, { kind: SpanKind.SERVER }, parent, async (span) => {
        requestSpans.add(span);
        // Attributes only on a span that records them (the samplers we offer do not read them).
        if (span.isRecording()) setDefined(span, attributes);
        try {
          return await fn(handle(span));
        } finally {
          span.end();
        }
      });
    },
    annotate(attributes) {
      const span = trace.getActiveSpan();
      if (span?.isRecording()) setDefined(span, attributes);
    },
    activeLink: () => valid(trace.getActiveSpan()?.spanContext()),
    linkFromJob(metadata) {
      if (!metadata) return undefined;
      try {
        return valid(trace.getSpanContext(propagation.extract(ROOT_CONTEXT, JSON.parse(metadata))));
      } catch {
        return undefined;
      }
    },
    requestJobContext() {
      const active = context.active();
      const span = trace.getSpan(active);
      const sampledOutBefore = active.getValue(SAMPLED_OUT_KEY) === true;
      if (!span || (!sampledOutBefore && !requestSpans.has(span))) return undefined;
      // Sampled out before the SDK, the context holds no trace state and no baggage: with W3C's propagator
      // among those configured (the default), its `traceparent` is what the propagators write.
      if (sampledOutBefore && propagated.includes('traceparent')) {
        const { traceId, spanId, traceFlags } = span.spanContext();
        return traceparentJson(traceId, spanId, traceFlags);
      }
      // What BullMQ's add would write for it (`getMetadata`).
      return telemetry.contextManager.getMetadata(active);
    },
    queueTelemetry: telemetry,
  };
  installTracingHooks(hooks);
  return {
    async stop() {
      // A collector that hangs must not hold up the app's exit: the last spans wait at most this long.
      const deadline = new AbortController();
      await Promise.race([
        sdk.shutdown().catch(() => {}),
        sleep(STOP_DEADLINE_MS, undefined, { signal: deadline.signal }).catch(() => {}),
      ]);
      deadline.abort();
    },
  };
}

/**
 * `bullmq-otel`'s telemetry, with two changes, each against traces that never end:
 * - BullMQ's housekeeping (the blocking wait for the next job, lock renewals, the stalled-job check,
 *   pause and close) starts no trace of its own: a worker would otherwise send a trace every few seconds,
 *   idle or not. Housekeeping done for a job (inside its trace) is kept.
 * - Its context manager gets `root()`, which BullMQ uses to run the stalled-job checker outside any span
 *   (bullmq#4731: without it, each check joins the span active when the loop started, and that trace grows
 *   for the life of the worker). bullmq-otel 2.0.1 does not have it.
 * A job's attempts each get their own `process` span, all children of the span that added the job: one
 * trace per submission, one span tree per attempt (bullmq#2942 is about jobs that repeat for ever; ours
 * have a bounded number of attempts).
 */
function queueTelemetry(w3cOnly: boolean): Telemetry<Context> {
  const otel = new BullMQOtel({ tracerName: 'bullmq' });
  const untraced = new BullMQOTelSpan(trace.wrapSpanContext({ traceId: '', spanId: '', traceFlags: 0 }));
  const tracer: Tracer<Context> = {
    startSpan(name, options, ctx) {
      const parent = ctx ?? context.active();
      const housekeeping = (options?.kind ?? SpanKind.INTERNAL) === SpanKind.INTERNAL;
      if (housekeeping && !valid(trace.getSpanContext(parent))) return untraced;
      // Inside a trace sampled out (9 adds in 10 at 10 %), the span would be sampled out too: the parent's own
      // context stands in for it, without new ids or a sampler's call, and the job still carries it, so the
      // worker's parent-based sampler leaves that job's spans out as well.
      if (sampledOut(parent)) return new BullMQOTelSpan(trace.wrapSpanContext(trace.getSpanContext(parent)!));
      return otel.tracer.startSpan(name, options, ctx);
    },
  };
  const manager = otel.contextManager;
  const contextManager: ContextManager<Context> = {
    with: (ctx, fn) => manager.with(ctx, fn),
    active: () => manager.active(),
    root: () => ROOT_CONTEXT,
    getMetadata: w3cOnly ? (ctx) => w3cJobContext(ctx) ?? manager.getMetadata(ctx) : (ctx) => manager.getMetadata(ctx),
    fromMetadata: (active, metadata) => manager.fromMetadata(active, metadata),
  };
  return { tracer, contextManager };
}

/** What the default propagators (W3C trace context and baggage) write for a context, as a job carries it. */
function traceparentJson(traceId: string, spanId: string, traceFlags: number): string {
  return `{"traceparent":"00-${traceId}-${spanId}-${traceFlags.toString(16).padStart(2, '0')}"}`;
}

/**
 * The trace context a job added under one of this process's own spans carries (`getMetadata`): what
 * `bullmq-otel` writes through the propagators (`propagation.inject`, then `JSON.stringify`), written here
 * when that is only a `traceparent`: the default propagators configured (the caller's to know: `W3C_FIELDS`),
 * no baggage, no trace state. A recording span's ids are the SDK's own, so they need not be checked again:
 * the W3C propagator's check of them (the API's `isSpanContextValid`, a loop over every character) cost
 * about 8 k instructions a call under callgrind. Anything else (baggage, a trace state, a span not
 * recording, which is what tracing suppressed gives) is undefined here: the propagators' own writing then.
 * `job-context-as-the-propagators-write-it` holds it to theirs.
 */
export function w3cJobContext(ctx: Context): string | undefined {
  const span = trace.getSpan(ctx);
  if (!span?.isRecording() || propagation.getBaggage(ctx)) return undefined;
  const { traceId, spanId, traceFlags, traceState } = span.spanContext();
  return traceState ? undefined : traceparentJson(traceId, spanId, traceFlags);
}
/** The fields the default propagators read and write: W3C trace context's and W3C baggage's. */
const W3C_FIELDS = new Set(['traceparent', 'tracestate', 'baggage']);

/** The server spans of incoming requests (`inServerSpan`): a job added in one carries its context. */
const requestSpans = new WeakSet<Span>();
/** Marks the context of a request sampled out before the SDK (`inServerSpan`), for `requestJobContext`. */
const SAMPLED_OUT_KEY = createContextKey('forms: sampled out before the SDK');
const SAMPLED_OUT_BEFORE = ROOT_CONTEXT.setValue(SAMPLED_OUT_KEY, true);
/** Where a new trace sampled before the SDK starts: the SDK's root sampler then agrees (head-sampling.ts). */
const SAMPLED_IN_BEFORE = sampledBefore(ROOT_CONTEXT);

function handle(span: Span): SpanHandle {
  if (!span.isRecording()) return NO_SPAN;
  return {
    recording: true,
    setAttributes: (attributes) => setDefined(span, attributes),
    updateName: (name) => span.updateName(name),
  };
}

/** True when `ctx` holds a span that was sampled out: its children would not be recorded either. */
function sampledOut(ctx: Context): boolean {
  const span = trace.getSpan(ctx);
  return span !== undefined && !span.isRecording() && (span.spanContext().traceFlags & TraceFlags.SAMPLED) === 0;
}

/** Sets each attribute that has a value, one by one: what `setAttributes` does, without a copy made first. */
function setDefined(span: Span, attributes: SpanAttributes): void {
  for (const key in attributes) {
    const value = attributes[key];
    if (value !== undefined) span.setAttribute(key, value);
  }
}

function valid(spanContext: TraceLink | undefined): TraceLink | undefined {
  return spanContext && isSpanContextValid({ ...spanContext }) ? spanContext : undefined;
}
