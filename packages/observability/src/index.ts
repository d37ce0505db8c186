/**
 * Shared by gateway, worker and the ops CLI: PII-free logging, masking for display, the admin token check,
 * and tracing (the SDK itself is loaded by `startTracing` only when an OTLP endpoint is set).
 */
export { createLogger, REDACT_PATHS } from './create-logger.ts';
export { logSafeText } from './log-safe-text.ts';
export { maskPii } from './mask-pii.ts';
export { PERSONAL_FIELDS, SUBMISSION_CARRIERS } from './personal-fields.ts';
export { scrubPii } from './scrub-pii.ts';
export { startTracing } from './start-tracing.ts';
export { tokenMatches } from './token-matches.ts';
export type { Tracing, TracingOptions } from './tracing.ts';
export { tracingEnabled } from './tracing-enabled.ts';
export {
  activeTraceLink,
  annotateSpan,
  jobTraceLink,
  queueTelemetry,
  requestJobContext,
  type SpanAttributes,
  type SpanHandle,
  type TraceLink,
  tracingStarted,
  withServerSpan,
  withSpan,
} from './tracing-hooks.ts';
