import type { IncomingMessage } from 'node:http';

/**
 * Reads and discards what is left of a request body refused before its end, so the answer reaches a browser:
 * closing a socket with unread bytes resets it (`ERR_CONNECTION_RESET` in Chromium, seen on a form post
 * whose CV was refused mid-file), and the person sees a network error instead of the page. Bounded in bytes
 * (a body declared or found larger is left, and the connection closed as before) and in time. Resolves true
 * when the body was read to its end.
 */
export function drainBody(req: IncomingMessage, { maxBytes, timeoutMs }: { maxBytes: number; timeoutMs: number }) {
  if (req.complete) return Promise.resolve(true);
  const declared = Number(req.headers['content-length'] ?? 0);
  if (declared > maxBytes) return Promise.resolve(false);
  return new Promise<boolean>((resolve) => {
    let read = 0;
    const timer = setTimeout(() => done(false), timeoutMs);
    function onData(chunk: Buffer) {
      read += chunk.length;
      if (read > maxBytes) done(false);
    }
    const onEnd = () => done(true);
    const onClose = () => done(req.complete);
    function done(whole: boolean) {
      clearTimeout(timer);
      req.off('data', onData);
      req.off('end', onEnd);
      req.off('close', onClose);
      if (!whole) req.pause();
      resolve(whole);
    }
    req.on('data', onData);
    req.on('end', onEnd);
    req.on('close', onClose);
    req.resume();
  });
}
