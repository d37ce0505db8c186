import * as v from 'valibot';

/** The layers of the spam defence, in the order they run (docs/operations.md#spam-quarantine). */
export const SPAM_LAYERS = ['honeypot', 'rules', 'filter', 'challenge', 'akismet'] as const;
export type SpamLayer = (typeof SPAM_LAYERS)[number];

/**
 * One layer's flag: which layer, a code from a fixed list per layer (rule name, provider error code, …), a
 * detail taken from configuration or a score (never from what the submitter wrote), and its weight: 1 holds
 * a submission alone, 0.5 only with another half (a submission is spam when its weights add up to 1).
 */
export const SpamReasonSchema = v.object({
  layer: v.picklist(SPAM_LAYERS),
  code: v.string(),
  detail: v.optional(v.string()),
  weight: v.number(),
});
export type SpamReason = v.InferOutput<typeof SpamReasonSchema>;

/** What the quarantine keeps beside a held submission: why it is there, and whether an agent sent it. */
export const SpamJudgementSchema = v.object({
  reasons: v.array(SpamReasonSchema),
  /** The content filter's spam probability, when it ran. */
  score: v.optional(v.number()),
  /** The name an agent declared with the `Forms-Agent` header (agents meet the content layers only). */
  agent: v.optional(v.string()),
  /**
   * With Akismet on: the client's address and user agent, which Akismet's submit-ham and submit-spam require
   * when ops release or mark it (personal data: `ops spam show` reveals it only with --reveal).
   */
  client: v.optional(v.object({ ip: v.string(), userAgent: v.optional(v.string()) })),
  /**
   * The reviewed mark: ops (the CLI or the admin page) taught the filter this held submission's label and left
   * it held. Kept in the judgement so it goes wherever the held submission goes (released, purged, expired).
   */
  reviewed: v.optional(v.object({ label: v.picklist(['spam', 'ham']), at: v.string(), by: v.string() })),
});
export type SpamJudgement = v.InferOutput<typeof SpamJudgementSchema>;

/** `layer:code` or `layer:code (detail)`, as ops and the CRMs show a reason (the detail is never the submitter's). */
export function spamReasonLabel(r: SpamReason): string {
  return `${r.layer}:${r.code}${r.detail ? ` (${r.detail})` : ''}`;
}
