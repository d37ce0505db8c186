import { createRequire } from 'node:module';

const require = createRequire(import.meta.url);
// free-email-domains: HubSpot's free-mail list, kept up to date by its maintainer (~14k domains).
// disposable-email-domains: the community list of throwaway-mail domains (~120k). Loaded once, here, for
// both the work-email check and the spam rules (spam/check-rules.ts).
const DISPOSABLE_DOMAINS = new Set<string>(require('disposable-email-domains/index.json') as string[]);
const FREE_DOMAINS = new Set<string>(require('free-email-domains/domains.json') as string[]);

/**
 * True unless the address is at a free-mail or disposable domain (or a subdomain of one). Takes the address
 * as the gateway keeps it: lower-cased, once, in `acceptSubmission`.
 */
export function isWorkEmail(email: string): boolean {
  return !atDomainIn(email, FREE_DOMAINS) && !atDomainIn(email, DISPOSABLE_DOMAINS);
}

/** True when the (lower-cased) address is at a disposable-address domain or a subdomain of one. */
export function isDisposableEmail(email: string): boolean {
  return atDomainIn(email, DISPOSABLE_DOMAINS);
}

function atDomainIn(email: string, domains: ReadonlySet<string>): boolean {
  // The domain, then each of its suffixes of two labels or more (`a.b.c`, `b.c`), without splitting it.
  let domain = email.slice(email.lastIndexOf('@') + 1);
  for (let dot = domain.indexOf('.'); dot !== -1; dot = domain.indexOf('.')) {
    if (domains.has(domain)) return true;
    domain = domain.slice(dot + 1);
  }
  return false;
}
