import { readFileSync } from 'node:fs';
import { SUBMISSION_ENDPOINTS, type SubmissionKind } from '@forms/schemas';
import * as v from 'valibot';

const KINDS = SUBMISSION_ENDPOINTS.map((e) => e.kind);

const regex = v.pipe(
  v.string(),
  v.check((source) => compiles(source), 'is not a valid regular expression'),
);
const words = v.array(v.pipe(v.string(), v.trim(), v.minLength(1, 'must not be empty'), v.toLowerCase()));

/** One form kind's rules as the file writes them: every entry optional, an unknown one an error. */
const KindRulesSchema = v.strictObject({
  /** The challenge token: `required` (missing or failed holds it), `scored` (counts half), `off`. */
  challenge: v.optional(v.picklist(['off', 'scored', 'required'])),
  blockedAddresses: v.optional(words),
  blockedDomains: v.optional(words),
  /** A disposable-address domain (the `disposable-email-domains` package) counts half. */
  disposableDomains: v.optional(v.boolean()),
  /** Phrases of today's spam families (pharmacy, crypto giveaways, SEO pitches) count half (spam-phrases.ts). */
  spamPhrases: v.optional(v.boolean()),
  keywords: v.optional(words),
  /** Regular expressions, matched case-insensitively against each free-text field. */
  patterns: v.optional(v.array(regex)),
  /** More links than this in the free-text fields together holds it. */
  maxLinks: v.optional(v.pipe(v.number(), v.integer(), v.minValue(0))),
  /** This many links or more count half (with a disposable domain, or a scored challenge failed: held). */
  suspectLinks: v.optional(v.pipe(v.number(), v.integer(), v.minValue(1))),
});

const RulesFileSchema = v.pipe(
  v.record(v.string(), KindRulesSchema),
  v.check(
    (file) => Object.keys(file).every((key) => key === '*' || (KINDS as string[]).includes(key)),
    `keys must be "*" or a form kind (${KINDS.join(', ')})`,
  ),
);

export type SpamRules = Readonly<{
  challenge: 'off' | 'scored' | 'required';
  blockedAddresses: ReadonlySet<string>;
  blockedDomains: readonly string[];
  disposableDomains: boolean;
  spamPhrases: boolean;
  keywords: readonly string[];
  patterns: readonly RegExp[];
  maxLinks: number | undefined;
  suspectLinks: number | undefined;
}>;

/**
 * With no rules file: challenges off, a disposable domain counts half (held beside the filter's unsure), and
 * no link count: links earn nothing alone on the corpus (2 to 8 links in 63 % of its spam and 60 % of its ham;
 * more than 8 in 19 % of spam and 3 % of ham, mailing-list digests), so the filter weighs them with the rest of
 * the text (its `~links` features) instead. A rules file sets `maxLinks` and `suspectLinks` for a form whose
 * people send no links (docs/benchmarks.md#spam-filter).
 */
const DEFAULTS: {
  challenge: 'off';
  blockedAddresses: string[];
  blockedDomains: string[];
  disposableDomains: boolean;
  spamPhrases: boolean;
  keywords: string[];
  patterns: string[];
  maxLinks?: number;
  suspectLinks?: number;
} = {
  challenge: 'off',
  blockedAddresses: [],
  blockedDomains: [],
  disposableDomains: true,
  spamPhrases: true,
  keywords: [],
  patterns: [],
};

/**
 * Every form kind's rules: the defaults, under the file's `*` entry, under the kind's own. The file
 * (SPAM_RULES_FILE, JSON) is read and checked once at start; a bad rule throws an error naming it.
 */
export function loadSpamRules(path: string | undefined): Readonly<Record<SubmissionKind, SpamRules>> {
  let file: v.InferOutput<typeof RulesFileSchema> = {};
  if (path) {
    let raw: unknown;
    try {
      raw = JSON.parse(readFileSync(path, 'utf8'));
    } catch (err) {
      throw new Error(`Invalid configuration: SPAM_RULES_FILE ${path}: ${(err as Error).message}`);
    }
    const parsed = v.safeParse(RulesFileSchema, raw);
    if (!parsed.success) {
      const issue = parsed.issues[0];
      throw new Error(
        `Invalid configuration: SPAM_RULES_FILE ${path}: ${v.getDotPath(issue) ?? '(root)'} ${issue.message}`,
      );
    }
    file = parsed.output;
  }
  const rules = {} as Record<SubmissionKind, SpamRules>;
  for (const kind of KINDS) {
    const merged = { ...DEFAULTS, ...file['*'], ...file[kind] };
    rules[kind] = Object.freeze({
      ...merged,
      maxLinks: merged.maxLinks,
      suspectLinks: merged.suspectLinks,
      blockedAddresses: new Set(merged.blockedAddresses),
      patterns: merged.patterns.map((source) => new RegExp(source, 'iu')),
    });
  }
  return Object.freeze(rules);
}

function compiles(source: string): boolean {
  try {
    new RegExp(source, 'iu');
    return true;
  } catch {
    return false;
  }
}
