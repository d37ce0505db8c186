import { queueKey, type RedisSettings } from './redis-settings.ts';

/**
 * The Redis keys ops state lives in, beside the queue's own (`<prefix>:<queue>:…`, so hash-tagged with the
 * queue's prefix on a cluster and in its slot): named once here for the gateway (which quarantines and
 * audits Bull Board's writes) and the ops CLI (which reads and acts on both). No name carries PII.
 */
export function opsKeys(settings: Pick<RedisSettings, 'prefix'>, queueName: string) {
  return {
    /** The audit trail: a stream capped at AUDIT_MAX_ENTRIES (approximately), one entry per step of an action. */
    audit: queueKey(settings, queueName, 'audit'),
    /** Quarantined submission ids, scored by when they were quarantined (epoch ms). */
    spamIndex: queueKey(settings, queueName, 'spam'),
    /** Quarantined submission id → its job payload (JSON), exactly what it would have been queued as. */
    spamData: queueKey(settings, queueName, 'spam', 'data'),
    /** Quarantined submission id → why it was held (JSON SpamJudgement: the layers' reasons), kept and dropped with it. */
    spamReasons: queueKey(settings, queueName, 'spam', 'reasons'),
    /**
     * What ops taught the content filter (`ops spam mark` / `release`): a hash of counts, `docs:spam`,
     * `docs:ham` and per feature `s:<feature>` / `h:<feature>`, a feature being a hash of a word, never the
     * word. The gateway adds it to the starting model it ships with.
     */
    spamModel: queueKey(settings, queueName, 'spam', 'model'),
  };
}

/** Entries the audit stream keeps (XADD MAXLEN ~): two per action, so about 5,000 actions. */
export const AUDIT_MAX_ENTRIES = 10_000;
