import { isRedisTransition } from '@forms/runtime';
import type { Context, Next } from 'koa';
import type { Logger } from 'pino';
import { ApiError, type ErrorStyle, errorBody } from '../errors.ts';
import type { TooLarge } from './json-body.ts';

/** Routes that answer errors as {error, message} say so before anything can fail. */
export function errorStyle(style: ErrorStyle) {
  return async function errorStyle(ctx: Context, next: Next) {
    ctx.state.errorStyle = style;
    await next();
  };
}

/** First in the stack: maps every failure to its status and envelope. Unknown errors are a logged 500. */
export function errorHandler({ logger, documentation }: { logger: Logger; documentation: string }) {
  return async function errorHandler(ctx: Context, next: Next) {
    try {
      await next();
    } catch (err) {
      const error = toApiError(err, ctx.state.tooLarge);
      if (error.code === 'INTERNAL_ERROR')
        logger.error({ err, path: ctx.path, requestId: ctx.state.requestId }, 'request failed');
      else if (error.code === 'QUEUE_UNAVAILABLE') {
        // A Redis transition's 503s are logged once per holding episode (submissions/transition-hold.ts), not
        // once per request; anything else (Redis full, a script error) is logged with its request.
        const level = isRedisTransition(err) ? 'debug' : 'warn';
        logger[level]({ err: (err as Error).cause ?? err, requestId: ctx.state.requestId }, 'queue unavailable');
      }
      ctx.status = error.status;
      ctx.set(error.headers);
      ctx.body = errorBody(error, ctx.state.errorStyle ?? 'structured', documentation);
    }
  };
}

/** Any failure as the ApiError it is answered with (a body-reading error by its type; anything else a 500). */
export function toApiError(err: unknown, tooLarge?: TooLarge): ApiError {
  if (err instanceof ApiError) return err;
  const e = err as { status?: number; type?: string; limit?: number };
  // Body-reading errors: readBody's (readJsonBody, named as raw-body names them), and co-body's from Bull Board's koa-bodyparser
  if (e.type === 'entity.too.large') {
    return tooLarge
      ? new ApiError(tooLarge.code, tooLarge.field ? { field: tooLarge.field } : {})
      : new ApiError('PAYLOAD_TOO_LARGE', { detail: `${e.limit} bytes` });
  }
  if (e.type === 'entity.parse.failed' || (e.status === 400 && err instanceof SyntaxError))
    return new ApiError('INVALID_JSON');
  if (e.type === 'encoding.unsupported' || e.status === 415) return new ApiError('UNSUPPORTED_MEDIA_TYPE');
  if (e.type === 'request.aborted' || e.status === 400) return new ApiError('INVALID_JSON');
  return new ApiError('INTERNAL_ERROR');
}
