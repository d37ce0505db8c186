import { type Context, createContextKey, TraceFlags, trace } from '@opentelemetry/api';
import {
  AlwaysOnSampler,
  ParentBasedSampler,
  type Sampler,
  SamplingDecision,
  TraceIdRatioBasedSampler,
} from '@opentelemetry/sdk-trace';

/**
 * How new traces are sampled, read from OTEL_TRACES_SAMPLER and OTEL_TRACES_SAMPLER_ARG as the SDK reads them,
 * for a caller that decides a new trace's sampling before the SDK sees it (the gateway's server spans: a
 * request sampled out then never enters the SDK).
 *
 * - `rootRatio`: the chance that a new trace is sampled, when the sampler is one of the parent-based ones
 *   (the SDK's default, `parentbased_always_on`, included); undefined for any other sampler, whose every span
 *   must be the SDK's own decision.
 * - `sampler`: what the SDK is given for the parent-based ones: the same decisions as the SDK's own sampler
 *   from the same variables, made cheaper for a child of one of this process's own sampled spans (see
 *   `ownSampledParentFirst`), and holding a decision made before the SDK (a ratio below 1). Undefined for
 *   any other sampler: the SDK builds that one, and says what it thinks of the variables.
 */
export type HeadSampling = { rootRatio: number | undefined; sampler: Sampler | undefined };

/** Set on the context a new trace is started in when it was already decided to be sampled. */
const SAMPLED_BEFORE = createContextKey('forms: sampled before the SDK');

export function headSampling(env: NodeJS.ProcessEnv = process.env): HeadSampling {
  const name = env.OTEL_TRACES_SAMPLER?.trim() || 'parentbased_always_on';
  const rootRatio = {
    parentbased_always_on: 1,
    parentbased_always_off: 0,
    parentbased_traceidratio: samplerRatio(env.OTEL_TRACES_SAMPLER_ARG),
  }[name];
  if (rootRatio === undefined) return { rootRatio, sampler: undefined };
  return { rootRatio, sampler: ownSampledParentFirst(new ParentBasedSampler({ root: rootSampler(rootRatio) })) };
}

/** How a new trace is sampled: always at 1; below 1, as decided before the SDK, else by the ratio. */
function rootSampler(ratio: number): Sampler {
  if (ratio === 1) return new AlwaysOnSampler();
  // New traces not decided before the SDK (the worker's and the ops CLI's, a request that came with a
  // caller's trace context) are the SDK's ratio sampler's, as OTEL_TRACES_SAMPLER says.
  const byRatio = new TraceIdRatioBasedSampler(ratio);
  return {
    shouldSample: (context, traceId) =>
      context.getValue(SAMPLED_BEFORE) === true
        ? { decision: SamplingDecision.RECORD_AND_SAMPLED }
        : byRatio.shouldSample(context, traceId),
    toString: () => `SampledBefore{${byRatio}}`,
  };
}

const SAMPLED = { decision: SamplingDecision.RECORD_AND_SAMPLED };

/**
 * A parent-based sampler that answers a span whose parent is one of this process's own spans, recording
 * and sampled (a submission's `add` under its request), as the parent-based sampler does (its local sampled
 * parent's sampler, AlwaysOn: sampled), without checking the parent's ids again: the SDK made them. The
 * check (the API's `isSpanContextValid`, a loop over every character) cost about 8 k instructions a span
 * under callgrind. Any other parent, remote or not recording, and a new trace: `parentBased`'s own answer.
 */
function ownSampledParentFirst(parentBased: ParentBasedSampler): Sampler {
  return {
    shouldSample(context, ...rest) {
      const parent = trace.getSpan(context);
      if (parent?.isRecording() && parent.spanContext().traceFlags & TraceFlags.SAMPLED) return SAMPLED;
      return parentBased.shouldSample(context, ...rest);
    },
    toString: () => parentBased.toString(),
  };
}

/** The context a new trace decided to be sampled starts in: the SDK's root sampler then agrees. */
export function sampledBefore(context: Context): Context {
  return context.setValue(SAMPLED_BEFORE, true);
}

/** As the SDK reads OTEL_TRACES_SAMPLER_ARG: a number in [0, 1], else 1. */
function samplerRatio(arg: string | undefined): number {
  const ratio = arg?.trim() ? Number(arg) : Number.NaN;
  return ratio >= 0 && ratio <= 1 ? ratio : 1;
}
