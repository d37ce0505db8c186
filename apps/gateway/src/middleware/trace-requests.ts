import { type SpanHandle, withServerSpan } from '@forms/observability';
import type { Context, Next } from 'koa';

/**
 * With tracing on, each request under `prefix` (submissions and the rest of the API) is a server span,
 * continuing the caller's trace when it sent a `traceparent`; `observeRequests` names it by its route and
 * adds the request id and the answer's status. Health checks, scrapes and pages start no trace. The span's
 * handle is `ctx.state.span` (`requestSpan`): what runs under it annotates it without looking it up in the
 * active context, and builds nothing for a request sampled out.
 */
export function traceRequests({ prefix = '/api/' } = {}) {
  return function traceRequests(ctx: Context, next: Next) {
    if (!ctx.path.startsWith(prefix)) return next();
    const attributes = { 'http.request.method': ctx.method, 'url.path': ctx.path };
    // The answer's status is set with the route, by observeRequests, once the rest has answered.
    return withServerSpan(ctx.headers, ctx.method, attributes, (span) => {
      ctx.state.span = span;
      return next();
    });
  };
}

/** The request's server span (`traceRequests`), or undefined with tracing off and outside `/api/`. */
export function requestSpan(ctx: Context): SpanHandle | undefined {
  return ctx.state.span;
}
