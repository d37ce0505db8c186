import type { IncomingMessage } from 'node:http';
import { ApiError } from '../errors.ts';
import type { ShapeFault } from './json-shape.ts';

/** How a body must arrive: whole within `timeoutMs`, and at least `minBytesPerSecond` over every window. */
export type BodyPace = { timeoutMs: number; minBytesPerSecond: number };

/** The minimum rate is judged over this window, sliding by a second: a short stall is no fault. */
const RATE_WINDOW_SECONDS = 5;

/** The errors the error handler maps by `type`, as raw-body (which this replaces) named them. */
function tooLarge(limit: number) {
  return Object.assign(new Error('request entity too large'), { status: 413, type: 'entity.too.large', limit });
}
function badLength() {
  return Object.assign(new Error('request size did not match content length'), { status: 400 });
}
function aborted() {
  return Object.assign(new Error('request aborted'), { status: 400, type: 'request.aborted' });
}

/**
 * Reads a request body as raw-body did (a declared length over `limit` is refused before a byte is read,
 * a body past it as soon as it passes, one shorter than declared is a 400), and besides:
 * - `scan` sees each chunk as it arrives; its fault ends the read at once (a nesting bomb is refused from
 *   its first chunk, the other megabytes never read);
 * - `pace`, for careers bodies, which hold a CV slot while they are read: a body not whole within
 *   `timeoutMs`, or slower than `minBytesPerSecond` over the last few seconds, is cut with 408
 *   BODY_TIMEOUT. Before, a slot was held for as long as a client trickled a byte a second (Node's own
 *   request timeout is 300 s): four such clients locked every applicant out.
 * - `scan` may answer an Error of its own (a form body's fault), which ends the read the same way;
 * - `keep: false` (a multipart body, which `scan` hands on to its parser as it comes) keeps no chunk:
 *   the promise then resolves with an empty buffer once the body has ended.
 * - `peek` (form posts): a declared length over `limit` is still read up to `peek` bytes, through `scan`,
 *   before the 413: a form's `_error` page, sent before its file, is then known for the refusal.
 * A read ended early leaves the request paused; its caller answers with `Connection: close`.
 */
export function readBody(
  req: IncomingMessage,
  {
    limit,
    scan,
    pace,
    keep = true,
    peek = 0,
  }: {
    limit: number;
    scan?: (chunk: Uint8Array) => ShapeFault | Error;
    pace?: BodyPace;
    keep?: boolean;
    peek?: number;
  },
): Promise<Buffer> {
  const declared = req.headers['content-length'];
  const length = declared === undefined ? undefined : Number(declared);
  const overDeclared = length !== undefined && length > limit;
  if (overDeclared && peek <= 0) return Promise.reject(tooLarge(limit));
  // Past this many bytes the read ends: the limit, or, for a body declared too large, what may be peeked.
  const stopAt = overDeclared ? Math.min(peek, limit) : limit;
  return new Promise<Buffer>((resolve, reject) => {
    const chunks: Buffer[] = [];
    let received = 0;
    const started = Date.now();
    // Bytes received at each of the last seconds, for the rate over the window.
    const history: number[] = [];
    const timer = pace
      ? setInterval(() => {
          const elapsed = Date.now() - started;
          history.push(received);
          if (history.length > RATE_WINDOW_SECONDS + 1) history.shift();
          if (elapsed > pace.timeoutMs)
            return fail(
              new ApiError('BODY_TIMEOUT', { detail: `did not arrive within ${Math.round(pace.timeoutMs / 1000)} s` }),
            );
          const windowBytes = received - (history.length > RATE_WINDOW_SECONDS ? history[0]! : 0);
          if (history.length >= RATE_WINDOW_SECONDS && windowBytes < pace.minBytesPerSecond * RATE_WINDOW_SECONDS)
            fail(
              new ApiError('BODY_TIMEOUT', { detail: `arrived slower than ${pace.minBytesPerSecond} bytes a second` }),
            );
        }, 1_000)
      : undefined;

    function cleanup() {
      clearInterval(timer);
      req.off('data', onData);
      req.off('end', onEnd);
      req.off('aborted', onAborted);
      req.off('close', onClose);
      req.off('error', onError);
    }
    function fail(err: Error) {
      cleanup();
      req.pause();
      reject(err);
    }
    function onData(chunk: Buffer) {
      received += chunk.length;
      if (received > stopAt) {
        if (overDeclared) scan?.(chunk); // its fields, for the refusal; the answer is the 413 whatever it finds
        return fail(tooLarge(limit));
      }
      const fault = scan?.(chunk);
      if (fault) return fail(typeof fault === 'string' ? new ApiError('INVALID_JSON', { detail: fault }) : fault);
      if (keep) chunks.push(chunk);
    }
    function onEnd() {
      cleanup();
      if (length !== undefined && received !== length) return reject(badLength());
      resolve(chunks.length === 1 ? chunks[0]! : Buffer.concat(chunks, keep ? received : 0));
    }
    function onAborted() {
      cleanup();
      reject(aborted());
    }
    function onClose() {
      if (!req.complete) onAborted();
    }
    function onError(err: Error) {
      cleanup();
      reject(Object.assign(err, { status: 400 }));
    }
    req.on('data', onData);
    req.on('end', onEnd);
    req.on('aborted', onAborted);
    req.on('close', onClose);
    req.on('error', onError);
  });
}
