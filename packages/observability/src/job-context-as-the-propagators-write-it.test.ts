import { type Context, propagation, ROOT_CONTEXT, trace } from '@opentelemetry/api';
import {
  CompositePropagator,
  suppressTracing,
  TraceState,
  W3CBaggagePropagator,
  W3CTraceContextPropagator,
} from '@opentelemetry/core';
import { TracerProvider } from '@opentelemetry/sdk-trace';
import { BullMQOtel } from 'bullmq-otel';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { w3cJobContext } from './otel-sdk.ts';

// The trace context a job carries is written without the propagators when they would write only a
// `traceparent`. Whatever it writes must be what `bullmq-otel` writes through the default propagators (the
// worker reads it back through them), and it must step aside whenever they would write more or nothing.
const tracer = new TracerProvider().getTracer('test');
const bullmq = new BullMQOtel({ tracerName: 'bullmq' }).contextManager;

beforeAll(() => {
  propagation.setGlobalPropagator(
    new CompositePropagator({ propagators: [new W3CTraceContextPropagator(), new W3CBaggagePropagator()] }),
  );
});
afterAll(() => propagation.disable());

const underSpan = (parent: Context = ROOT_CONTEXT) => trace.setSpan(parent, tracer.startSpan('add', {}, parent));

it('writes what the default propagators write for one of our recording spans', () => {
  for (let i = 0; i < 20; i++) {
    const ctx = underSpan(i % 2 ? ROOT_CONTEXT : underSpan());
    expect(w3cJobContext(ctx)).toBe(bullmq.getMetadata(ctx));
    expect(w3cJobContext(ctx)).toMatch(/^\{"traceparent":"00-[0-9a-f]{32}-[0-9a-f]{16}-01"\}$/);
  }
});

it('leaves to the propagators a context with baggage, a trace state, or no recording span', () => {
  const withBaggage = propagation.setBaggage(underSpan(), propagation.createBaggage({ plan: { value: 'pro' } }));
  const withState = trace.setSpan(
    ROOT_CONTEXT,
    tracer.startSpan(
      'add',
      {},
      trace.setSpanContext(ROOT_CONTEXT, {
        traceId: '0af7651916cd43dd8448eb211c80319c',
        spanId: 'b7ad6b7169203331',
        traceFlags: 1,
        traceState: new TraceState('vendor=value'),
      }),
    ),
  );
  const remote = trace.setSpanContext(ROOT_CONTEXT, {
    traceId: '0af7651916cd43dd8448eb211c80319c',
    spanId: 'b7ad6b7169203331',
    traceFlags: 1,
    isRemote: true,
  });
  // Tracing suppressed: the SDK starts no recording span in such a context.
  const suppressed = underSpan(suppressTracing(ROOT_CONTEXT));
  for (const ctx of [withBaggage, withState, remote, suppressed, ROOT_CONTEXT]) {
    expect(w3cJobContext(ctx)).toBeUndefined();
  }
  // Each of which the propagators write otherwise: more than a traceparent, or nothing at all.
  expect(bullmq.getMetadata(withBaggage)).toContain('"baggage":"plan=pro"');
  expect(bullmq.getMetadata(withState)).toContain('"tracestate":"vendor=value"');
  expect(bullmq.getMetadata(suppressed)).toBe('{}');
});
