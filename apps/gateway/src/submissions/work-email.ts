import { createRequire } from 'node:module';

const require = createRequire(import.meta.url);
// free-email-domains: HubSpot's free-mail list, kept up to date by its maintainer (~14k domains).
// disposable-email-domains: the community list of throwaway-mail domains (~120k).
const PERSONAL_DOMAINS = new Set<string>([
  ...(require('free-email-domains/domains.json') as string[]),
  ...(require('disposable-email-domains/index.json') as string[]),
]);

/**
 * True unless the address is at a free-mail or disposable domain (or a subdomain of one). Takes the address
 * as the gateway keeps it: lower-cased, once, in `acceptSubmission`.
 */
export function isWorkEmail(email: string): boolean {
  const labels = email.slice(email.lastIndexOf('@') + 1).split('.');
  for (let i = 0; i < labels.length - 1; i++) {
    if (PERSONAL_DOMAINS.has(labels.slice(i).join('.'))) return false;
  }
  return true;
}
