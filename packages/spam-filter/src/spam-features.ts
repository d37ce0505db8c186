/** At most this many distinct features are read from one submission: a bound on the cost of scoring it. */
export const MAX_FEATURES = 400;

/**
 * Whole-message classes, each a feature when its pattern is anywhere in a text: what a body-only filter sees of
 * a bulk mailer (its HTML's remnants, its calls to act, its opt-out line, its percentages, dollars and `!!!`).
 */
const CLASSES: readonly (readonly [token: string, pattern: RegExp])[] = [
  ['~html', /<\/?[a-z]+[\s>]|&[a-z]{2,6};|&#\d+;/i],
  ['~click-here', /click\s+(?:here|below)/i],
  ['~unsubscribe', /unsubscri|opt[- ]?out|to be removed|remove (?:me|you)/i],
  ['~percent', /\d\s?%/],
  ['~dollars', /\$\s?\d/],
  ['~exclaims', /!!!/],
];
/** Blank lines (spaces only) at most the features' lowest class counts: a layout's leftovers. */
const BLANK_LINE = /\n[ \t\r]*(?=\n)/g;

// Words (letters and digits, with inner apostrophes, dots and dashes), money ($12, 99€) and percentages included.
const WORD = /[\p{L}\p{N}$€£][\p{L}\p{N}'’.-]*[\p{L}\p{N}$€£%!]|[\p{L}$€£]/gu;
// A link: its scheme (or a bare `www.`), its host, and the rest up to a space or a quote.
const LINK = /\b(?:(https?|ftp):\/\/|(?=www\.))([a-z0-9.-]+)([^\s"'<>()]*)/giu;
// An email address written in the text (a reply-to, a "contact me at").
const EMAIL_IN_TEXT = /(?<=[\w.+-])@([a-z0-9-]+(?:\.[a-z0-9-]+)+)/giu;
/** Longer words are skipped as words (ids, encodings, run-together text) and counted by length class. */
const MAX_WORD = 16;
const CURRENCY = new Set(['$', '€', '£']);

/**
 * A submission as the content filter sees it: the set of its distinct features, each a 32-bit FNV-1a hash of
 * a token (only hashes: neither the model nor Redis ever holds a word of what people wrote). SpamBayes'
 * tokenizer ideas, measured on the corpus (docs/benchmarks.md#spam-filter):
 * - lower-cased words of 2 to MAX_WORD characters; a longer one is `skip:<first letter><length/10>`; an
 *   all-capitals word of 3 letters or more is kept in capitals too (SHOUTED words say more than the word);
 *   a long digit run (a phone number, an id) is `num:<digits>`, an amount of money `money`;
 * - each link as `proto:<scheme>`, `host:<host>`, `url:<each part of the host>` and `url:<each path piece>`,
 *   and counts of links (`~links:some`, `~links:many`);
 * - an email address in the text as `email:<its domain>`;
 * - the sender's email domain (`from:<domain>`, `from:<top-level domain>`): the address is the form's, not
 *   the text's, so it is passed apart;
 * - a shouting message (`~shouting`).
 */
export function spamFeatures(texts: readonly string[], senderEmail?: string): Set<number> {
  const features = new Set<number>();
  if (senderEmail) {
    const domain = senderEmail.slice(senderEmail.lastIndexOf('@') + 1).toLowerCase();
    add(features, `from:${domain}`);
    add(features, `from:.${domain.slice(domain.lastIndexOf('.') + 1)}`);
  }
  for (const text of texts) shapeFeatures(features, text);
  let links = 0;
  let letters = 0;
  let capitals = 0;
  for (const text of texts) {
    // exec on the one regular expression, not matchAll: matchAll copies the expression on every call, which
    // was a third of what the filter added to a short submission (docs/benchmarks.md#spam-filter).
    LINK.lastIndex = 0;
    for (let match = LINK.exec(text); match; match = LINK.exec(text)) {
      links++;
      linkFeatures(features, match[1]?.toLowerCase() ?? 'www', match[2]!.toLowerCase(), match[3]!);
    }
    EMAIL_IN_TEXT.lastIndex = 0;
    for (let match = EMAIL_IN_TEXT.exec(text); match; match = EMAIL_IN_TEXT.exec(text))
      add(features, `email:${match[1]!.toLowerCase()}`);
    WORD.lastIndex = 0;
    for (let match = WORD.exec(text); match; match = WORD.exec(text)) {
      const word = match[0];
      let upper = 0;
      let lower = 0;
      for (let i = 0; i < word.length; i++) {
        const ch = word.charCodeAt(i);
        if (ch >= 65 && ch <= 90) upper++;
        else if (ch >= 97 && ch <= 122) lower++;
      }
      capitals += upper;
      letters += upper + lower;
      if (upper + lower === 0 && word.length > 4 && /^\d+$/.test(word)) add(features, `num:${word.length}`);
      else if (word.length > MAX_WORD)
        add(features, `skip:${word[0]!.toLowerCase()}${Math.floor(word.length / 10) * 10}`);
      else if (word.length >= 2) {
        add(features, upper === 0 ? word : word.toLowerCase());
        if (upper >= 3 && lower === 0) add(features, word);
        if (CURRENCY.has(word[0]!) || CURRENCY.has(word[word.length - 1]!)) add(features, 'money');
      }
      if (features.size >= MAX_FEATURES) return features;
    }
  }
  if (links > 0) add(features, links > 3 ? '~links:many' : '~links:some');
  if (letters > 40 && capitals / letters > 0.5) add(features, '~shouting');
  return features;
}

/**
 * What a text's shape says before its words are read (so a long text's cap on features never drops it): its
 * share of non-ASCII characters in tenths (`~wide:<1..5>`: a script the corpus's ham never wrote in), a run of
 * undecodable characters (`~unreadable`), layout's leftover blank lines (`~blank-lines:<few|some|many>`), and
 * the CLASSES it matches.
 */
function shapeFeatures(features: Set<number>, text: string) {
  let wide = 0;
  let unreadable = 0;
  for (let i = 0; i < text.length; i++) {
    const ch = text.charCodeAt(i);
    if (ch > 127) {
      wide++;
      if (ch === 0xfffd) unreadable++;
    }
  }
  if (text.length >= 20 && wide > 0) add(features, `~wide:${Math.min(5, Math.ceil((10 * wide) / text.length))}`);
  if (unreadable > 3) add(features, '~unreadable');
  const blank = text.match(BLANK_LINE)?.length ?? 0;
  if (blank >= 4) add(features, `~blank-lines:${blank >= 30 ? 'many' : blank >= 10 ? 'some' : 'few'}`);
  for (const [token, pattern] of CLASSES) if (pattern.test(text)) add(features, token);
}

function linkFeatures(features: Set<number>, scheme: string, host: string, rest: string) {
  add(features, `proto:${scheme}`);
  const bare = host.replace(/^www\./, '').replace(/\.$/, '');
  add(features, `host:${bare}`);
  for (const part of bare.split('.')) if (part) add(features, `url:${part}`);
  let pieces = 0;
  for (const piece of rest.split(/[/?&=#.,:;_%+-]+/))
    if (piece.length >= 2 && piece.length <= MAX_WORD && ++pieces <= 8) add(features, `url:${piece.toLowerCase()}`);
}

function add(features: Set<number>, token: string) {
  features.add(fnv1a(token));
}

/** FNV-1a, 32 bits: fast, stable across processes and versions (the starting model is stored by it). */
function fnv1a(text: string): number {
  let hash = 0x811c9dc5;
  for (let i = 0; i < text.length; i++) {
    hash ^= text.charCodeAt(i);
    hash = Math.imul(hash, 0x01000193);
  }
  return hash >>> 0;
}
