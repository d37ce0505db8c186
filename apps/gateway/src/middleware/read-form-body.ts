import { Busboy, type BusboyHeaders } from '@fastify/busboy';
import { BODY_LIMITS } from '@forms/schemas';
import type { Context } from 'koa';
import { ApiError } from '../errors.ts';
import { type BodyPace, readBody } from './read-body.ts';

/** The two media types a browser posts a form as, without JavaScript. */
export const FORM_TYPES: ReadonlySet<string> = new Set(['application/x-www-form-urlencoded', 'multipart/form-data']);

const AMPERSAND = 0x26;

/** A file input the route takes (careers: `cvFile`), with its own size limit and its mapping onto the body. */
type FormFile = {
  field: string;
  maxBytes: number;
  /** The error for a file past `maxBytes` (careers: 413 CV_TOO_LARGE). */
  tooLarge: () => Error;
  /** The field's value in the body, made from the uploaded file. */
  toValue: (upload: { filename: string; mimeType: string; bytes: Buffer }) => unknown;
};

export type FormBodyOptions = {
  limit: number;
  pace?: BodyPace | undefined;
  /** Top-level fields whose schema is a plain boolean: "true"/"on" and "false"/"off" become booleans. */
  booleans?: ReadonlySet<string> | undefined;
  file?: FormFile | undefined;
};

/**
 * Reads an `application/x-www-form-urlencoded` or `multipart/form-data` body into the plain object a JSON
 * caller would have sent, so validation, idempotency, the honeypot and the spam layers see one shape
 * whatever the encoding (docs/site-forms.md#plain-html-forms). The rule:
 * - a field's name is its JSON name; a dotted name is a nested field (`cvFile.filename` is
 *   `{cvFile: {filename}}`), at most BODY_LIMITS.depth levels; a `__proto__` segment is dropped, as in JSON;
 * - values are strings, except top-level fields whose schema is a plain boolean (`booleans`): "true" and
 *   "on" (a checked checkbox) are true, "false" and "off" false, an empty value absent;
 * - a name sent twice keeps its last value (a hidden "false" before a checkbox of the same name);
 * - the route's file input (`file`) becomes `file.toValue(...)`; a file input left empty (no file chosen)
 *   is absent; any other file is discarded unread, like an unknown field.
 * The limits are JSON's: the route's byte limit and pace (`readBody`: a declared length over the limit is
 * refused before a byte is read), and at most BODY_LIMITS.members fields, counted as the bytes arrive
 * (the `&`s of a urlencoded body; busboy's part limit for multipart), so an oversized form is refused
 * without being parsed whole. A multipart body is parsed as it streams (busboy), never held whole.
 */
export async function readFormBody(ctx: Context, type: string, options: FormBodyOptions) {
  return type === 'multipart/form-data' ? readMultipart(ctx, options) : readUrlEncoded(ctx, options);
}

/**
 * How much of a form body declared over the limit is still read, for its `_next` and `_error` (hidden
 * fields a form puts first, before any file): a refusal then goes to the site's own page, a 413 included.
 */
const FORM_PEEK_BYTES = 16 * 1024;

function keepTargets(ctx: Context, fields: Record<string, unknown>) {
  ctx.state.formTargets = { _next: fields._next, _error: fields._error };
}

async function readUrlEncoded(ctx: Context, { limit, pace, booleans }: FormBodyOptions) {
  let fields = 1;
  // The body's start, parsed for the form's pages only when the read fails.
  const start: Uint8Array[] = [];
  let startBytes = 0;
  let raw: Buffer;
  try {
    raw = await readBody(ctx.req, {
      limit,
      peek: FORM_PEEK_BYTES,
      ...(pace ? { pace } : {}),
      scan(chunk) {
        if (startBytes < FORM_PEEK_BYTES) {
          start.push(chunk); // no copy: a socket never reuses a chunk it handed on
          startBytes += chunk.length;
        }
        for (let at = chunk.indexOf(AMPERSAND); at >= 0; at = chunk.indexOf(AMPERSAND, at + 1))
          if (++fields > BODY_LIMITS.members) return tooManyFields();
        return undefined;
      },
    });
  } catch (err) {
    // Only whole pairs: the last one may be cut anywhere.
    const text = Buffer.concat(start).toString('utf8');
    keepTargets(ctx, Object.fromEntries(new URLSearchParams(text.slice(0, text.lastIndexOf('&') + 1))));
    throw err;
  }
  const body: Record<string, unknown> = {};
  for (const [name, value] of new URLSearchParams(raw.toString('utf8'))) {
    const fault = setField(body, name, value);
    if (fault) throw fault;
  }
  return withBooleans(body, booleans);
}

async function readMultipart(ctx: Context, { limit, pace, booleans, file }: FormBodyOptions) {
  const body: Record<string, unknown> = {};
  let fault: Error | undefined;
  let parser: ReturnType<typeof Busboy>;
  try {
    parser = Busboy({
      headers: ctx.req.headers as BusboyHeaders,
      limits: {
        parts: BODY_LIMITS.members,
        fieldSize: limit,
        files: file ? 1 : 0,
        fileSize: file?.maxBytes ?? 0,
        headerPairs: 20,
      },
    });
  } catch {
    // busboy's constructor throws for a multipart type without a boundary.
    throw new ApiError('INVALID_FORM', { detail: 'has no multipart boundary in its Content-Type' });
  }
  // Files are read as their bytes arrive; their 'end' may come after the parser's 'finish'.
  const files: Promise<void>[] = [];
  parser.on('field', (name, value, nameTruncated, valueTruncated) => {
    if (nameTruncated) return; // a name past busboy's 100 bytes is no field of ours
    if (valueTruncated) fault ??= new ApiError('INVALID_FORM', { detail: 'holds a field larger than the body limit' });
    else fault ??= setField(body, name, value);
  });
  parser.on('file', (name, stream, filename, _encoding, mimeType) => {
    // A body cut short inside a file is the parser's error too: the file's own is only noted, never thrown.
    stream.on('error', () => {
      fault ??= new ApiError('INVALID_FORM', { detail: 'ends inside a file' });
    });
    if (!file || name !== file.field) {
      stream.resume();
      return;
    }
    const chunks: Buffer[] = [];
    stream.on('data', (chunk: Buffer) => chunks.push(chunk));
    stream.on('limit', () => {
      fault ??= file.tooLarge();
    });
    files.push(
      new Promise<void>((resolve) => {
        stream.on('error', () => resolve());
        stream.on('end', () => {
          const bytes = Buffer.concat(chunks);
          // No file chosen: a browser still sends the part, with an empty file name and no bytes.
          if (!stream.truncated && (filename || bytes.length > 0))
            fault ??= setField(body, name, file.toValue({ filename: filename ?? '', mimeType: mimeType ?? '', bytes }));
          resolve();
        });
      }),
    );
  });
  parser.on('partsLimit', () => {
    fault ??= tooManyFields();
  });
  const finished = new Promise<void>((resolve) => {
    parser.on('finish', resolve);
    parser.on('error', () => {
      fault ??= new ApiError('INVALID_FORM', { detail: 'is not well-formed multipart/form-data' });
      resolve();
    });
  });
  try {
    await readBody(ctx.req, {
      limit,
      keep: false,
      peek: FORM_PEEK_BYTES,
      ...(pace ? { pace } : {}),
      scan(chunk) {
        if (!fault) parser.write(chunk);
        return fault;
      },
    });
    if (fault) throw fault;
    parser.end();
    await finished;
    await Promise.all(files);
    if (fault) throw fault;
  } catch (err) {
    // The fields read before the fault (a CV past its limit comes after the form's hidden fields).
    keepTargets(ctx, body);
    throw err;
  }
  return withBooleans(body, booleans);
}

/** Sets `name`'s value in `body`, a dotted name as nested fields; a fault for a name nested too deep. */
function setField(body: Record<string, unknown>, name: string, value: unknown): Error | undefined {
  const path = name.split('.');
  if (path.length > BODY_LIMITS.depth)
    return new ApiError('INVALID_FORM', {
      detail: `has a field name nested more than ${BODY_LIMITS.depth} levels deep`,
    });
  let target = body;
  for (let i = 0; i < path.length; i++) {
    const key = path[i]!;
    if (key === '__proto__') return undefined; // removed, as bourne removes it from JSON
    if (i === path.length - 1) {
      target[key] = value;
      break;
    }
    const next = Object.hasOwn(target, key) ? target[key] : undefined;
    if (next !== null && typeof next === 'object') target = next as Record<string, unknown>;
    else target = target[key] = {};
  }
  return undefined;
}

function withBooleans(body: Record<string, unknown>, booleans: ReadonlySet<string> | undefined) {
  if (!booleans) return body;
  for (const name of booleans) {
    const value = body[name];
    if (typeof value !== 'string') continue;
    const word = value.trim().toLowerCase();
    if (word === '') delete body[name];
    else if (word === 'true' || word === 'on') body[name] = true;
    else if (word === 'false' || word === 'off') body[name] = false;
  }
  return body;
}

function tooManyFields() {
  return new ApiError('INVALID_FORM', {
    detail: `holds more than ${BODY_LIMITS.members} fields; send the form's documented fields`,
  });
}
