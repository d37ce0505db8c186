import type { SpanHandle } from '@forms/observability';
import type { ErrorStyle } from './errors.ts';
import type { TooLarge } from './middleware/json-body.ts';

/**
 * What the gateway's middleware leave on `ctx.state` for what runs after them, each set in one place. Merged
 * into Koa's `DefaultState` below, so every `ctx.state` in the gateway is checked against it.
 */
type RequestState = {
  /** The request's id, from its `X-Request-Id` or made (`request-id.ts`). */
  requestId?: string;
  /** Its server span, with tracing on and under `/api/` (`trace-requests.ts`). */
  span?: SpanHandle;
  /** How its route answers errors (`errorStyle`, `error-handler.ts`). */
  errorStyle?: ErrorStyle;
  /** The code and field of a body over its route's limit (`json-body.ts`). */
  tooLarge?: TooLarge;
  /** The body came as a form post, urlencoded or multipart (`json-body.ts`). */
  formPost?: true;
  /** A form's own pages, kept from a body that could not be read whole (`read-form-body.ts`). */
  formTargets?: { _next?: unknown; _error?: unknown };
  /** A browser's form navigation's body, for the page its refusal goes to (`submission-routes.ts`). */
  submissionBody?: unknown;
};

declare module 'koa' {
  interface DefaultState extends RequestState {}
}
