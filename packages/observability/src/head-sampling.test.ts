import { type Context, ROOT_CONTEXT, SpanKind, TraceFlags, trace } from '@opentelemetry/api';
import {
  AlwaysOffSampler,
  AlwaysOnSampler,
  ParentBasedSampler,
  RandomIdGenerator,
  SamplingDecision,
  TracerProvider,
} from '@opentelemetry/sdk-trace';
import { describe, expect, it } from 'vitest';
import { headSampling, sampledBefore } from './head-sampling.ts';

const ids = new RandomIdGenerator();
const decide = (env: NodeJS.ProcessEnv, context = ROOT_CONTEXT) =>
  headSampling(env).sampler!.shouldSample(context, ids.generateTraceId(), 'POST /api/contact', SpanKind.SERVER, {}, [])
    .decision;
const under = (traceFlags: TraceFlags) =>
  trace.setSpanContext(ROOT_CONTEXT, { traceId: ids.generateTraceId(), spanId: ids.generateSpanId(), traceFlags });

describe('head sampling read from the OTEL_TRACES_SAMPLER variables', () => {
  it('gives the chance of a new trace for the parent-based samplers, as the SDK reads them', () => {
    expect(headSampling({}).rootRatio).toBe(1);
    expect(headSampling({ OTEL_TRACES_SAMPLER: 'parentbased_always_on' }).rootRatio).toBe(1);
    expect(headSampling({ OTEL_TRACES_SAMPLER: 'parentbased_always_off' }).rootRatio).toBe(0);
    const ratio = (arg?: string) =>
      headSampling({ OTEL_TRACES_SAMPLER: ' parentbased_traceidratio ', OTEL_TRACES_SAMPLER_ARG: arg }).rootRatio;
    expect(ratio('0.1')).toBe(0.1);
    expect(ratio('0')).toBe(0);
    // Blank, not a number or out of range: the SDK's 1, and so ours.
    expect([ratio(undefined), ratio(' '), ratio('a tenth'), ratio('1.5'), ratio('-0.1')]).toEqual([1, 1, 1, 1, 1]);
  });

  it('leaves every other sampler to the SDK, span by span', () => {
    for (const name of ['always_on', 'always_off', 'traceidratio', 'jaeger_remote']) {
      expect(headSampling({ OTEL_TRACES_SAMPLER: name, OTEL_TRACES_SAMPLER_ARG: '0.1' })).toEqual({
        rootRatio: undefined,
        sampler: undefined,
      });
    }
  });

  it("decides as the SDK's parent-based sampler would, a child of our own sampled span included", () => {
    const provider = new TracerProvider();
    const recording = (flags: TraceFlags) =>
      trace.setSpan(ROOT_CONTEXT, provider.getTracer('test').startSpan('request', {}, under(flags)));
    const remote = (traceFlags: TraceFlags) =>
      trace.setSpanContext(ROOT_CONTEXT, { ...trace.getSpanContext(under(traceFlags))!, isRemote: true });
    const contexts = [
      ROOT_CONTEXT,
      sampledBefore(ROOT_CONTEXT),
      under(TraceFlags.SAMPLED),
      under(TraceFlags.NONE),
      remote(TraceFlags.SAMPLED),
      remote(TraceFlags.NONE),
      recording(TraceFlags.SAMPLED),
    ];
    expect(trace.getSpan(contexts.at(-1)!)!.isRecording()).toBe(true);
    for (const env of [{}, { OTEL_TRACES_SAMPLER: 'parentbased_traceidratio', OTEL_TRACES_SAMPLER_ARG: '0' }]) {
      const sdks = new ParentBasedSampler({
        root: env.OTEL_TRACES_SAMPLER ? new AlwaysOffSampler() : new AlwaysOnSampler(),
      });
      const sdk = (context: Context) =>
        sdks.shouldSample(context, ids.generateTraceId(), 'POST /api/contact', SpanKind.SERVER, {}, []).decision;
      // The one difference by design: a new trace decided before the SDK is sampled whatever the ratio.
      expect(contexts.map((context) => decide(env, context))).toEqual(
        contexts.map((context, i) => (i === 1 ? SamplingDecision.RECORD_AND_SAMPLED : sdk(context))),
      );
    }
  });

  it('samples a new trace decided before the SDK, whatever the ratio, and follows a parent as before', () => {
    const env = { OTEL_TRACES_SAMPLER: 'parentbased_traceidratio', OTEL_TRACES_SAMPLER_ARG: '0' };
    expect(decide(env, sampledBefore(ROOT_CONTEXT))).toBe(SamplingDecision.RECORD_AND_SAMPLED);
    // Not decided before: the ratio sampler's (0 here, so never), as for the worker's and the ops CLI's roots.
    expect(decide(env)).toBe(SamplingDecision.NOT_RECORD);
    expect(decide(env, under(TraceFlags.SAMPLED))).toBe(SamplingDecision.RECORD_AND_SAMPLED);
    expect(decide(env, under(TraceFlags.NONE))).toBe(SamplingDecision.NOT_RECORD);
    // A sampled-out parent wins over a stale mark on its context.
    expect(decide(env, sampledBefore(under(TraceFlags.NONE)))).toBe(SamplingDecision.NOT_RECORD);
  });
});
