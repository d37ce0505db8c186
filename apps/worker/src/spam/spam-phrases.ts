/**
 * Phrases of today's contact-form spam families that the content filter's 2002 corpus cannot know (no crypto,
 * no SEO pitches from webmail in it), each counting half: held beside the filter's unsure band or a throwaway
 * address, never alone. Each fires on none of the corpus's 2,500 ham messages (`pnpm bench:spam-filter`
 * prints what each reason earns); a phrase an ordinary enquiry could use ("do you do SEO?") is not one.
 * A rules file turns them off with `"spamPhrases": false`.
 */
export const SPAM_PHRASES: readonly (readonly [family: string, phrase: RegExp])[] = [
  [
    'pharmacy',
    /\b(buy|order|cheap|discount|generic)\b.{0,30}\b(viagra|cialis|levitra|xanax|valium|tramadol)\b|\b(viagra|cialis|levitra|xanax|valium|tramadol)\b.{0,60}\bwithout (a )?(doctor'?s )?prescription\b|\b(online pharmacy|no prescription needed)\b/iu,
  ],
  [
    'crypto-giveaway',
    /\b(crypto|bitcoin|btc|eth(ereum)?|usdt)\b.{0,40}\bgiveaway\b|\bgiveaway\b.{0,40}\b(crypto|bitcoin|btc|eth(ereum)?|usdt)\b|\bsend \d+(\.\d+)? ?(btc|eth|usdt|bitcoin)\b/iu,
  ],
  [
    'seo-pitch',
    /\b(first|1st|top) page (of|on|in) google\b|\bgoogle'?s (first|1st|top) page\b|\b(not|isn'?t) ranking (on|in) (google|search)\b|\bseo (audit|expert|experts|team|packages?|services) (for|to|at)\b/iu,
  ],
];
