import type { ErrorCode } from '@forms/schemas';
import bourne from '@hapi/bourne';
import type { Context, Next } from 'koa';
import { ApiError } from '../errors.ts';
import { createShapeScanner } from './json-shape.ts';
import { type BodyPace, readBody } from './read-body.ts';
import { FORM_TYPES, type FormBodyOptions, readFormBody } from './read-form-body.ts';

/** `application/<anything>+json`, which is read as JSON too. */
const JSON_SUFFIX_TYPE = /^application\/[\w.+-]+\+json$/;
/** A JSON text whose first token opens an object or an array (RFC 8259 white space before it). */
const OBJECT_OR_ARRAY = /^[ \t\n\r]*[[{]/;

/** INVALID_JSON's words for each way a body fails to be a JSON object (one rule: docs/api.md#error-codes). */
const EMPTY = 'is empty; send the fields as one JSON object, such as {"email": "ada@example.com"}';
const NOT_AN_OBJECT = 'is not a JSON object; send the fields as one {...} object';
const NOT_JSON = 'is not valid JSON (a syntax error); send the fields as one JSON object';
const UNSUPPORTED_ON_SUBMISSIONS =
  'Send the body as JSON ("Content-Type: application/json") or as a form (application/x-www-form-urlencoded or multipart/form-data)';

declare module 'koa' {
  interface Request {
    /** The parsed JSON body, where jsonBody ran. */
    body?: unknown;
  }
}

/** What a body over the limit is answered with on a route, when not the generic PAYLOAD_TOO_LARGE. */
export type TooLarge = { code: ErrorCode; field?: string };

/**
 * Reads a JSON body with a size limit chosen per route, and returns it parsed. Anything but JSON is a 415
 * before a byte is read, and so is a compressed body: browsers never compress request bodies, ours are at
 * most a few KiB (a CV is already compressed), and a body we never inflate can be neither corrupt (zlib
 * errors were 500s) nor a zip bomb. A body over the limit is a 413 (readBody checks Content-Length first,
 * then counts): PAYLOAD_TOO_LARGE, or the route's own `tooLarge` (careers-apply, where only the CV can be
 * that large), which the error handler reads from `ctx.state`. The text is UTF-8; it must be an object or
 * an array, else a 400 (an empty body is `{}` on /api/mcp, refused on the submission routes; an array is
 * refused by the schema's check, `parseOrThrow`).
 * With `forms` (the submission routes), a form post is read by `readFormBody` under the same limits. `__proto__` keys are removed at any depth while parsing
 * (@hapi/bourne; unknown fields, dropped like the rest). While the bytes arrive, their shape is scanned
 * (`createShapeScanner`): deeper than BODY_LIMITS.depth or wider than BODY_LIMITS.members is a 400 at once.
 * `pace` (careers) cuts a body that arrives too slowly (`readBody`).
 *
 * bourne is what koa-bodyparser ran underneath; called directly, the submission path does not pay for that
 * middleware's content negotiation and wrapping on every request. raw-body, which it also ran, is replaced
 * by `readBody`: it has no way to look at chunks as they come, nor a read deadline.
 */
export async function readJsonBody(
  ctx: Context,
  {
    limit,
    tooLarge,
    pace,
    forms,
  }: {
    limit: number;
    tooLarge?: TooLarge;
    pace?: BodyPace | undefined;
    /** The submission routes: form posts are read too (readFormBody), and an empty JSON body is refused. */
    forms?: Omit<FormBodyOptions, 'limit' | 'pace'>;
  },
) {
  if (tooLarge) ctx.state.tooLarge = tooLarge;
  const type = ctx.request.type;
  // JSON is asked first: the common case pays one comparison, as before forms were read.
  const json = type === 'application/json' || JSON_SUFFIX_TYPE.test(type);
  if (!json && !(forms && FORM_TYPES.has(type))) {
    throw new ApiError('UNSUPPORTED_MEDIA_TYPE', forms ? { detail: UNSUPPORTED_ON_SUBMISSIONS } : {});
  }
  const encoding = ctx.get('content-encoding').trim().toLowerCase();
  if (encoding !== '' && encoding !== 'identity') {
    throw new ApiError('UNSUPPORTED_MEDIA_TYPE', {
      detail: `Send the body uncompressed: "Content-Encoding: ${encoding.slice(0, 40)}" is not accepted`,
      headers: { 'Accept-Encoding': 'identity' },
    });
  }
  let raw: Buffer;
  try {
    if (!json) {
      ctx.state.formPost = true;
      return await readFormBody(ctx, type, { ...forms, limit, pace });
    }
    // The shape is scanned as the bytes arrive: a nesting or width bomb is refused without being parsed,
    // from its first chunk.
    raw = await readBody(ctx.req, { limit, scan: createShapeScanner(), ...(pace ? { pace } : {}) });
  } catch (err) {
    // Refused before the body ended: close the connection rather than wait for (or read) the rest.
    if (!ctx.req.complete) ctx.set('Connection', 'close');
    throw err;
  }
  const text = raw.toString('utf8');
  if (text === '') {
    if (forms) throw new ApiError('INVALID_JSON', { detail: EMPTY });
    return {};
  }
  if (!OBJECT_OR_ARRAY.test(text)) throw new ApiError('INVALID_JSON', { detail: NOT_AN_OBJECT });
  let body: unknown;
  try {
    body = bourne.parse(text, { protoAction: 'remove' });
  } catch {
    throw new ApiError('INVALID_JSON', { detail: NOT_JSON });
  }
  return body;
}

/** readJsonBody as middleware, leaving the body in `ctx.request.body`. */
export function jsonBody(options: { limit: number; tooLarge?: TooLarge; pace?: BodyPace }) {
  return async function jsonBody(ctx: Context, next: Next) {
    ctx.request.body = await readJsonBody(ctx, options);
    await next();
  };
}
