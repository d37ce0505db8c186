import type { Logger } from 'pino';
import type { GatewayMetrics } from '../gateway-metrics.ts';

/** How often one refused origin is logged again while forms keep naming it. */
const REFUSED_REDIRECT_LOG_INTERVAL_MS = 10 * 60_000;
/** Origins remembered per interval: a bound on memory, whatever targets a bot invents. */
const MAX_ORIGINS = 1_000;

/**
 * What the gateway does when a form's `_next` or `_error` names a page FORM_REDIRECT_URLS does not allow: a
 * site's misconfiguration, never the person's (docs/operations.md#form-redirect-refused). The submission is
 * judged on its own merits and the person gets the gateway's own page; ops learn of it here: the counter
 * `forms_form_redirects_refused_total{field}` on every one, and a warning naming the refused origin (a
 * site's address, not personal data; never the path or query, which a site may fill with anything) once per
 * origin per interval, so a busy form logs one line, not one per lead.
 */
export function noteRefusedRedirect({
  logger,
  metrics,
  intervalMs = REFUSED_REDIRECT_LOG_INTERVAL_MS,
  now = Date.now,
}: {
  logger?: Logger | undefined;
  metrics?: GatewayMetrics | undefined;
  intervalMs?: number;
  now?: () => number;
}) {
  let warned = new Set<string>();
  let since = now();
  return function refusedRedirect(field: '_next' | '_error', target: unknown, kind: string): void {
    metrics?.formRedirectsRefused.inc({ field });
    if (now() - since >= intervalMs) {
      warned = new Set();
      since = now();
    }
    const origin = originOf(target);
    if (warned.has(origin) || warned.size >= MAX_ORIGINS) return;
    warned.add(origin);
    logger?.warn(
      { field, origin, form: kind },
      `form redirect refused: a ${kind} form's ${field} names ${origin}, which FORM_REDIRECT_URLS does not allow; the submission was judged on its own merits and the person shown the gateway's own page (docs/operations.md#form-redirect-refused)`,
    );
  };
}

/** A target's origin as the warning names it: scheme, host and port only, bounded. */
function originOf(target: unknown): string {
  try {
    const origin = new URL(String(target)).origin;
    return origin === 'null' ? 'a URL without an origin' : origin.slice(0, 200);
  } catch {
    return 'a value that is not a URL';
  }
}
