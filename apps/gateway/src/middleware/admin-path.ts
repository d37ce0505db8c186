const ESCAPE = /%([0-9a-f]{2})/gi;
/** Worth a closer look: a path without `admin` in any case and without an escape cannot name the wing. */
const MAYBE_ADMIN = /admin|%|\\/i;

/**
 * The path as the most lenient reader would take it: percent-escapes decoded (again, for a double-encoded
 * one, up to three times; bytes as Latin-1, never a throw), `\` read as `/`, lower-cased, empty and `.`
 * segments dropped, `..` resolved. Routers, proxies and frameworks each undo a different part of this; the
 * admin wing's guard undoes all of it, so no spelling reaches a route that some reader maps to the wing.
 */
export function canonicalPath(path: string): string {
  let decoded = path;
  for (let round = 0; round < 3 && decoded.includes('%'); round++) {
    const next = decoded.replace(ESCAPE, (_, code: string) => String.fromCharCode(Number.parseInt(code, 16)));
    if (next === decoded) break;
    decoded = next;
  }
  const segments: string[] = [];
  for (const segment of decoded.replace(/\\/g, '/').toLowerCase().split('/')) {
    if (segment === '' || segment === '.') continue;
    if (segment === '..') segments.pop();
    else segments.push(segment);
  }
  return `/${segments.join('/')}`;
}

/**
 * True when any spelling of `path` names the admin wing (`/admin`, `/ADMIN/metrics`, `//admin/./metrics/`,
 * `/%61dmin/…`, `/x/../admin/…`): its first canonical segment starts with `admin`. Deliberately wide (an
 * `/administrator` is guarded too, and answered 401 rather than 404): a false positive costs a stranger a
 * 401, a false negative would open the wing. The one predicate both the wing's guard and the CORS exclusion use.
 */
export function isAdminPath(path: string): boolean {
  if (!MAYBE_ADMIN.test(path)) return false;
  return canonicalPath(path).startsWith('/admin');
}
