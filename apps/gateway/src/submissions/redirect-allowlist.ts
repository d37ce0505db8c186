/**
 * Where a plain form's post may be sent on (FORM_REDIRECT_URLS): a form names its thank-you page in a
 * hidden `_next` field and its own page in `_error`, and only a target this list allows is ever followed,
 * so the gateway is never an open redirect. An entry ending in `/` allows every page under it (a whole
 * site: `https://www.example.com/`); any other entry allows that page alone (one form's thank-you page).
 * Targets are compared parsed, origin and path, so `https://www.example.com.evil.io/` or
 * `https://www.example.com@evil.io/` match nothing; their query string is kept.
 */
export function redirectAllowlist(entries: readonly string[]) {
  const allowed = entries.map((entry) => new URL(entry));
  return function allowedTarget(target: unknown): URL | undefined {
    if (typeof target !== 'string' || target === '' || allowed.length === 0) return undefined;
    let url: URL;
    try {
      url = new URL(target);
    } catch {
      return undefined;
    }
    if (url.username !== '' || url.password !== '') return undefined;
    const fits = allowed.some(
      (entry) =>
        entry.origin === url.origin &&
        (entry.pathname.endsWith('/') ? url.pathname.startsWith(entry.pathname) : entry.pathname === url.pathname),
    );
    return fits ? url : undefined;
  };
}
