/**
 * `fetch` whose failures say why. undici rejects every network failure with `TypeError: fetch failed` and
 * keeps the reason in `err.cause` (`connect ECONNREFUSED 127.0.0.1:59999`, `getaddrinfo ENOTFOUND …`, a TLS
 * code); the job's failed reason and the log keep only `message`, so an operator learnt `fetch failed` and
 * nothing else (issue 30.7). The error thrown instead has the cause's code and text in its message, and the
 * host:port asked for when the cause does not name it, so every reader of `message` (the failed reason,
 * `ops failed`, `ops show`, the log) has them; its `name` and `cause` are the original's (`mayStillLand`
 * reads `cause.code`).
 *
 * Never in the message: the URL's credentials, path or query (an erase's lookup puts a formula with the
 * address in the query, and undici quotes a URL with credentials whole in the error it refuses it with).
 * A message that quotes a URL gets its origin, without credentials, instead.
 */
export async function fetchWithCause(url: string, init: RequestInit = {}): Promise<Response> {
  try {
    return await fetch(url, init);
  } catch (err) {
    if (!(err instanceof TypeError)) throw err; // a timeout (TimeoutError) says what happened already
    const cause = err.cause === undefined ? '' : `: ${causeText(err.cause)}`;
    const text = withoutUrls(`${err.message}${cause}`);
    const where = hostAndPort(url);
    throw new TypeError(where && !text.includes(where) ? `${text} (${where})` : text, { cause: err.cause });
  }
}

/** `ECONNREFUSED …`, `ENOTFOUND …`, `ERR_SSL_WRONG_VERSION_NUMBER (wrong version number)`; one line, bounded. */
function causeText(cause: unknown): string {
  if (typeof cause !== 'object' || cause === null) return String(cause).slice(0, 200);
  const {
    code,
    message = '',
    reason,
    errors,
  } = cause as {
    code?: unknown;
    message?: string;
    reason?: unknown;
    errors?: unknown[];
  };
  // Several addresses tried (IPv6 and IPv4 for `localhost`): each one's failure.
  if (Array.isArray(errors) && errors.length > 0) return [...new Set(errors.map(causeText))].join(', ');
  const firstLine = message.split('\n')[0]!.slice(0, 200);
  if (typeof code !== 'string') return firstLine;
  // OpenSSL's message is a long internal string; its `reason` is the readable part.
  if (typeof reason === 'string') return `${code} (${reason})`;
  return firstLine.includes(code) ? firstLine : `${code} ${firstLine}`.trim();
}

function hostAndPort(url: string): string | undefined {
  try {
    const { hostname, port, protocol } = new URL(url);
    return `${hostname}:${port || (protocol === 'https:' ? '443' : '80')}`;
  } catch {
    return undefined;
  }
}

function withoutUrls(text: string): string {
  return text.replace(/\bhttps?:\/\/[^\s"'<>]+/g, (url) => {
    try {
      return new URL(url).origin;
    } catch {
      return '[url]';
    }
  });
}
