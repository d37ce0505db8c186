import { randomUUID } from 'node:crypto';
import { REQUEST_ID_MAX_LENGTH } from '@forms/schemas';
import type { Context, Next } from 'koa';

const SANE = new RegExp(`^[A-Za-z0-9._:-]{1,${REQUEST_ID_MAX_LENGTH}}$`);

/**
 * Honours the caller's (or load balancer's) `X-Request-Id` when it is short and plain (letters, digits,
 * `._:-`), else makes one; echoes it in the answer and leaves it in `ctx.state.requestId`, from where it
 * goes into the job and so into the worker's logs. A hostile value (newlines, a megabyte) never reaches
 * a log line or Redis.
 */
export function requestId() {
  // Nothing to do after the rest: the rest's promise is returned, not awaited in a frame of its own.
  return function requestId(ctx: Context, next: Next) {
    const given = ctx.get('x-request-id');
    const id = SANE.test(given) ? given : randomUUID();
    ctx.state.requestId = id;
    ctx.set('X-Request-Id', id);
    return next();
  };
}
