import type { SpamReason } from '@forms/schemas';
import type { SpamRules } from '@forms/spam-filter';
import { isDisposableEmail } from '@forms/spam-filter';
import { SPAM_PHRASES } from './spam-phrases.ts';

// A link as spam carries it: a scheme, a `www.` host, or a BBCode/HTML link (counted once per opening).
const LINK = /\bhttps?:\/\/|\bwww\.[a-z0-9-]|\[url[=\]]|<a\s/giu;

/**
 * The form kind's rules against one submission: its (lower-cased) email and its free-text fields (every
 * string but the email). Synchronous and in memory. The reasons name the rule and the configured value that
 * matched (a keyword, a pattern's number), never the submitter's text.
 */
export function checkRules(rules: SpamRules, email: string, texts: readonly string[]): SpamReason[] {
  const reasons: SpamReason[] = [];
  const domain = email.slice(email.lastIndexOf('@') + 1);
  if (rules.blockedAddresses.has(email)) reasons.push({ layer: 'rules', code: 'blocked-address', weight: 1 });
  const blocked = rules.blockedDomains.find((d) => domain === d || domain.endsWith(`.${d}`));
  if (blocked) reasons.push({ layer: 'rules', code: 'blocked-domain', detail: blocked, weight: 1 });
  if (rules.disposableDomains && isDisposableEmail(email))
    reasons.push({ layer: 'rules', code: 'disposable-domain', weight: 0.5 });
  if (texts.length === 0) return reasons;
  if (rules.maxLinks !== undefined || rules.suspectLinks !== undefined) {
    let links = 0;
    for (const text of texts) links += text.match(LINK)?.length ?? 0;
    if (rules.maxLinks !== undefined && links > rules.maxLinks)
      reasons.push({ layer: 'rules', code: 'too-many-links', detail: `${links} > ${rules.maxLinks}`, weight: 1 });
    else if (rules.suspectLinks !== undefined && links >= rules.suspectLinks)
      reasons.push({ layer: 'rules', code: 'links', detail: String(links), weight: 0.5 });
  }
  if (rules.keywords.length > 0) {
    const lower = texts.map((t) => t.toLowerCase());
    const keyword = rules.keywords.find((k) => lower.some((t) => t.includes(k)));
    if (keyword) reasons.push({ layer: 'rules', code: 'keyword', detail: keyword, weight: 1 });
  }
  if (rules.spamPhrases) {
    const phrase = SPAM_PHRASES.find(([, re]) => texts.some((t) => re.test(t)));
    if (phrase) reasons.push({ layer: 'rules', code: 'spam-phrase', detail: phrase[0], weight: 0.5 });
  }
  const pattern = rules.patterns.findIndex((p) => texts.some((t) => p.test(t)));
  if (pattern !== -1)
    reasons.push({
      layer: 'rules',
      code: 'pattern',
      detail: `#${pattern + 1} ${rules.patterns[pattern]!.source}`,
      weight: 1,
    });
  return reasons;
}
