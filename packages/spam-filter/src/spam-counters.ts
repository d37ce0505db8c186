import type { SpamJudgement } from '@forms/schemas';
import { Counter, type Registry } from 'prom-client';

/**
 * What the spam layers decided, per process since start: plain numbers the metrics endpoint reads at scrape
 * time. The gateway counts the honeypot (held at once), the worker every verdict of its judge: each metric is
 * the sum over both apps, under the names ops know (docs/operations.md#metrics).
 */
export type SpamCounters = {
  /** Submissions judged, by verdict (`spam` held in the quarantine, `ham` delivered) and sender (`person`, `agent`). */
  verdicts: Map<string, number>;
  /** Every reason of every held submission, keyed `layer code` (a held submission counts once per reason). */
  reasons: Map<string, number>;
  /** Calls to a provider (challenge, akismet) that could not answer in time: the layer abstained. */
  unavailable: Map<string, number>;
};

export function createSpamCounters(): SpamCounters {
  return { verdicts: new Map(), reasons: new Map(), unavailable: new Map() };
}

export function countIn(map: Map<string, number>, key: string): void {
  map.set(key, (map.get(key) ?? 0) + 1);
}

/** Counts a verdict acted on (held or delivered), for the metrics. */
export function countVerdict(counters: SpamCounters, verdict: SpamJudgement & { spam: boolean }): void {
  countIn(counters.verdicts, `${verdict.spam ? 'spam' : 'ham'} ${verdict.agent ? 'agent' : 'person'}`);
  if (verdict.spam) for (const r of verdict.reasons) countIn(counters.reasons, `${r.layer} ${r.code}`);
}

/** The three spam counters, read from their maps at scrape time (each key its label values joined by a space). */
export function registerSpamMetrics(registry: Registry, counters: SpamCounters): void {
  const fromMap = (name: string, help: string, labelNames: readonly string[], counts: Map<string, number>) =>
    new Counter({
      name,
      help,
      labelNames,
      registers: [registry],
      collect() {
        this.reset();
        for (const [key, n] of counts) {
          const values = key.split(' ');
          this.inc(Object.fromEntries(labelNames.map((label, i) => [label, values[i]!])), n);
        }
      },
    });
  fromMap(
    'forms_spam_verdicts_total',
    'Submissions the spam layers judged, by verdict (spam: answered like a success and held in the quarantine; ham: delivered) and sender (person, or agent: the Forms-Agent header)',
    ['verdict', 'sender'],
    counters.verdicts,
  );
  fromMap(
    'forms_spam_reasons_total',
    'Reasons the spam layers gave for the submissions they held, by layer and code (a held submission counts once per reason)',
    ['layer', 'code'],
    counters.reasons,
  );
  fromMap(
    'forms_spam_layer_unavailable_total',
    'Calls to a spam provider (challenge siteverify, Akismet) that failed or passed their deadline: the layer abstained',
    ['layer'],
    counters.unavailable,
  );
}
