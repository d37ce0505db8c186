import type { Context, Next } from 'koa';
import type { Logger } from 'pino';
import type { GatewayMetrics } from '../gateway-metrics.ts';
import { requestSpan } from './trace-requests.ts';

/**
 * Counts and times every request by its matched route pattern (never the raw path: unknown paths are
 * one `(unmatched)` series, so a scanner cannot blow up the label set), and logs it at debug with its
 * request id: method, route, status, time; never a body, query or header.
 */
export function observeRequests({ metrics, logger }: { metrics: GatewayMetrics; logger: Logger }) {
  return async function observeRequests(ctx: Context, next: Next) {
    const started = performance.now();
    try {
      await next();
    } finally {
      const route = (ctx as Context & { _matchedRoute?: string })._matchedRoute ?? '(unmatched)';
      const seconds = (performance.now() - started) / 1000;
      metrics.requests.inc({ route, method: ctx.method, status: String(ctx.status) });
      metrics.requestDuration.observe({ route, method: ctx.method }, seconds);
      // The request's server span, when recorded, is named by its route, and carries the request id and status.
      const span = requestSpan(ctx);
      if (span?.recording) {
        span.setAttributes({
          'http.route': route,
          'request.id': ctx.state.requestId,
          'http.response.status_code': ctx.status,
        });
        span.updateName(`${ctx.method} ${route}`);
      }
      if (logger.isLevelEnabled('debug'))
        logger.debug(
          {
            requestId: ctx.state.requestId,
            method: ctx.method,
            route,
            status: ctx.status,
            ms: Math.round(seconds * 1000),
          },
          'request',
        );
    }
  };
}
