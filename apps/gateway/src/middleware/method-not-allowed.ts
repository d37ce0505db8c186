import type { Context, Next } from 'koa';
import { ApiError } from '../errors.ts';

/** Answers a method the path does not take: 405 with `Allow`; a plain OPTIONS gets 204 with `Allow`. */
export function methodNotAllowed(methods: readonly string[]) {
  const allow = [...methods, 'OPTIONS'].join(', ');
  return async function methodNotAllowed(ctx: Context, _next: Next) {
    ctx.set('Allow', allow);
    if (ctx.method === 'OPTIONS') {
      ctx.status = 204;
      return;
    }
    throw new ApiError('METHOD_NOT_ALLOWED', { detail: allow, headers: { Allow: allow } });
  };
}
