import { createHash, randomBytes } from 'node:crypto';
import type { WorkerRedis } from '../../create-worker-redis.ts';

/**
 * How long a record's field stamps are kept after its last write. A replay of a job older than this (from
 * the failed set, where jobs stay until removed) could overwrite newer values, as before this guard.
 */
const ORDER_RETENTION_MS = 90 * 24 * 60 * 60 * 1000;

/** The hash field holding the record's Airtable id beside the field stamps (no Airtable field starts with NUL). */
const RECORD_ID_FIELD = '\u0000record';

/**
 * CLAIM, for each write (KEYS: its lease and order keys, in pairs; ARGV: token, lease ms, the record-id
 * field, then per write
 * its stamp, its field count and field names): a lease held by another token is busy (answers its PTTL);
 * otherwise the lease is taken and the answer lists the record's Airtable id and the write's fields that a
 * newer write already set.
 */
const CLAIM = `
local token, leaseMs, recordField = ARGV[1], tonumber(ARGV[2]), ARGV[3]
local out, a = {}, 4
for i = 1, #KEYS, 2 do
  local stamp, n = ARGV[a], tonumber(ARGV[a + 1])
  a = a + 2
  local holder = redis.call('GET', KEYS[i])
  if holder and holder ~= token then
    out[#out + 1] = {0, math.max(1, redis.call('PTTL', KEYS[i]))}
  else
    redis.call('SET', KEYS[i], token, 'PX', leaseMs)
    local answer = {1, redis.call('HGET', KEYS[i + 1], recordField) or ''}
    for f = 0, n - 1 do
      local seen = redis.call('HGET', KEYS[i + 1], ARGV[a + f])
      if seen and seen > stamp then answer[#answer + 1] = ARGV[a + f] end
    end
    out[#out + 1] = answer
  end
  a = a + n
end
return out
`;

/**
 * APPLIED, after Airtable confirmed the writes (same KEYS; ARGV: token, retention ms, the record-id field, then per write its
 * stamp, Airtable record id, field count and field names): each field's stamp rises to the write's (never
 * falls), and the lease is released if still ours. A write with no fields (not ordered) only releases.
 */
const APPLIED = `
local token, retentionMs, recordField = ARGV[1], tonumber(ARGV[2]), ARGV[3]
local a = 4
for i = 1, #KEYS, 2 do
  local stamp, recordId, n = ARGV[a], ARGV[a + 1], tonumber(ARGV[a + 2])
  a = a + 3
  if n > 0 then
    for f = 0, n - 1 do
      local seen = redis.call('HGET', KEYS[i + 1], ARGV[a + f])
      if not seen or seen < stamp then redis.call('HSET', KEYS[i + 1], ARGV[a + f], stamp) end
    end
    redis.call('HSET', KEYS[i + 1], recordField, recordId)
    redis.call('PEXPIRE', KEYS[i + 1], retentionMs)
  end
  a = a + n
  if redis.call('GET', KEYS[i]) == token then redis.call('DEL', KEYS[i]) end
end
return 1
`;

/** RELEASE (KEYS: leases; ARGV[1]: token): drops the leases still ours, after an answer that applied nothing. */
const RELEASE = `
for i = 1, #KEYS do
  if redis.call('GET', KEYS[i]) == ARGV[1] then redis.call('DEL', KEYS[i]) end
end
return 1
`;

/** One write as the guard sees it: its record (table and merge value), and for ordered records its stamp and fields. */
export type GuardedWrite = {
  table: string;
  mergeValue: string;
  /** Set for records several submissions write (contacts); undefined for one-submission records. */
  stamp?: string | undefined;
  /** The fields it would send, without the merge field. */
  fields: string[];
};

export type ClaimAnswer =
  /** Another request for this record may be in flight: try again in `retryInMs`. */
  | { busy: true; retryInMs: number }
  /** Ours to send. `covered`: fields a newer write already set (leave them out); `crmRecordId` if known. */
  | { busy: false; covered: string[]; crmRecordId: string | undefined };

export type MergeKeyGuard = {
  /** A token for one request: its leases are taken, applied and released under it. */
  token(): string;
  claim(token: string, writes: GuardedWrite[]): Promise<ClaimAnswer[]>;
  /** Airtable confirmed these writes (with the fields actually sent): record their stamps, release. */
  applied(token: string, writes: (GuardedWrite & { crmRecordId: string })[]): Promise<void>;
  /** The request applied nothing (429, 401/403/404, a split, a permanent refusal): release at once. */
  release(token: string, writes: GuardedWrite[]): Promise<void>;
};

/** A record's lease and order keys (see createMergeKeyGuard); erase deletes them with the record. */
export function mergeKeyNames(queueName: string, table: string, mergeValue: string): [string, string] {
  const h = createHash('sha256').update(`${table}\u0000${mergeValue}`).digest('hex').slice(0, 32);
  return [`forms:{${queueName}}:airtable:lease:${h}`, `forms:{${queueName}}:airtable:order:${h}`];
}

/**
 * Per Airtable record, in Redis, shared by every worker process: a lease, so only one request for a record
 * is in flight anywhere (two processes upserting one new email into an Airtable that does not serialise
 * performUpsert made two records, and every later write for it then failed 422), and, for records several
 * submissions write, the acceptance stamp of the newest applied write of each field, so an older write
 * never overwrites a newer one, whatever fails, in whatever order retries and replays come back.
 *
 * A lease lasts `leaseMs` (twice the request timeout): it is released when Airtable's answer shows nothing
 * or everything was applied, and otherwise (a 5xx, a timeout, a dropped connection: the request may still
 * land) left to run out, so no newer write follows a request that could still be applied after it. A
 * process killed mid-request leaves its leases to run out too.
 *
 * Keys: `forms:{<queue>}:airtable:lease:<h>` (string, a token) and `forms:{<queue>}:airtable:order:<h>`
 * (hash: Airtable field name → stamp, plus the record id), where `<h>` is the first 32 hex digits of
 * SHA-256 over table, NUL, merge value: no email in a key name. The braces put every key of a queue in
 * one slot, so the scripts, which touch many records at once, also run on Redis Cluster.
 */
export function createMergeKeyGuard({
  redis,
  queueName,
  leaseMs,
  retentionMs = ORDER_RETENTION_MS,
}: {
  redis: WorkerRedis;
  queueName: string;
  leaseMs: number;
  retentionMs?: number;
}): MergeKeyGuard {
  const keysOf = (write: GuardedWrite) => mergeKeyNames(queueName, write.table, write.mergeValue);
  const orderedFields = (write: GuardedWrite) => (write.stamp === undefined ? [] : write.fields);
  const run = (script: string, keys: string[], args: (string | number)[]) =>
    redis.eval(script, keys.length, ...keys, ...args);

  return {
    token: () => randomBytes(12).toString('base64url'),
    async claim(token, writes) {
      if (writes.length === 0) return [];
      const args: (string | number)[] = [token, Math.round(leaseMs), RECORD_ID_FIELD];
      for (const w of writes) args.push(w.stamp ?? '', orderedFields(w).length, ...orderedFields(w));
      const answers = (await run(CLAIM, writes.flatMap(keysOf), args)) as [number, ...(string | number)[]][];
      return answers.map(([claimed, ...rest]) =>
        claimed === 1
          ? { busy: false, crmRecordId: (rest[0] as string) || undefined, covered: rest.slice(1) as string[] }
          : { busy: true, retryInMs: Number(rest[0]) },
      );
    },
    async applied(token, writes) {
      if (writes.length === 0) return;
      const args: (string | number)[] = [token, Math.round(retentionMs), RECORD_ID_FIELD];
      for (const w of writes) args.push(w.stamp ?? '', w.crmRecordId, orderedFields(w).length, ...orderedFields(w));
      await run(APPLIED, writes.flatMap(keysOf), args);
    },
    async release(token, writes) {
      if (writes.length === 0) return;
      await run(
        RELEASE,
        writes.map((w) => keysOf(w)[0]!),
        [token],
      );
    },
  };
}
