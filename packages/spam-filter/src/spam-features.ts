/** At most this many distinct features are read from one submission: a bound on the cost of scoring it. */
export const MAX_FEATURES = 400;

// Words (letters and digits, with inner apostrophes, dots and dashes), and the host of every link.
const WORD = /[\p{L}\p{N}$€£][\p{L}\p{N}'’.-]*[\p{L}\p{N}$€£%!]|[\p{L}$€£]/gu;
const LINK_HOST = /\b(?:https?:\/\/|www\.)([a-z0-9.-]+)/giu;

/**
 * A submission's free text as the content filter sees it: the set of its distinct features, each a 32-bit
 * FNV-1a hash of a lower-cased word (2 to 24 characters; long digit runs, which are phone numbers and ids,
 * skipped), of a link's host (`host:` prefix), or of a shape (`~links`, `~shouting`). Only hashes: neither the
 * model nor Redis ever holds a word of what people wrote.
 */
export function spamFeatures(texts: readonly string[]): Set<number> {
  const features = new Set<number>();
  let links = 0;
  let letters = 0;
  let capitals = 0;
  for (const text of texts) {
    // exec on the one regular expression, not matchAll: matchAll copies the expression on every call, which
    // was a third of what the filter added to a short submission (docs/benchmarks.md#spam-filter).
    LINK_HOST.lastIndex = 0;
    for (let match = LINK_HOST.exec(text); match; match = LINK_HOST.exec(text)) {
      links++;
      add(features, `host:${match[1]!.toLowerCase().replace(/^www\./, '')}`);
    }
    WORD.lastIndex = 0;
    for (let match = WORD.exec(text); match; match = WORD.exec(text)) {
      const word = match[0];
      if (word.length > 24 || (word.length > 4 && /^\d+$/.test(word))) continue;
      for (const ch of word) {
        if (ch >= 'A' && ch <= 'Z') capitals++;
        if ((ch >= 'a' && ch <= 'z') || (ch >= 'A' && ch <= 'Z')) letters++;
      }
      if (word.length >= 2) add(features, word.toLowerCase());
      if (features.size >= MAX_FEATURES) return features;
    }
  }
  if (links > 0) add(features, links > 3 ? '~links:many' : '~links:some');
  if (letters > 40 && capitals / letters > 0.5) add(features, '~shouting');
  return features;
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
