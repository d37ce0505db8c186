import type { Cluster, Redis } from 'ioredis';
import { scriptBatch } from './script-batch.ts';
import type { SubmissionKeys } from './submission-keys.ts';
import type { TransitionHold } from './transition-hold.ts';

/** What the first request with an Idempotency-Key recorded, as a retry finds it. */
type IdempotencyRecord = {
  fingerprint: string;
  submissionId: string;
  recordId: string;
  acceptedAt: string;
  known: boolean;
  /** True once Redis confirmed the job; until then a retry adds it again under the same job id. */
  done: boolean;
  cvUploadFailed: boolean;
};

export type Claim =
  | { kind: 'new'; recordId: string; known: boolean }
  | { kind: 'replay'; record: IdempotencyRecord }
  | { kind: 'limited'; retryAfterMs: number };

// One script, so everything a submission claims costs one round trip and is atomic:
// 1. the client's count in its rate-limit window (a fixed window, as rate-limiter-flexible's
//    RateLimiterRedis keeps it: INCR, expiry set on the window's first request); over the limit, the
//    answer is `limited` with the window's remaining time, and nothing else is claimed;
// 2. an Idempotency-Key already recorded answers its record and claims nothing more;
// 3. a contact kind claims the email's contact id (SET NX GET: two gateways racing on a new email agree),
//    and renews the index entry's TTL when the email was known;
// 4. the Idempotency-Key is recorded with the ids the answer will carry, marked not done.
// KEYS: [rate key][idempotency key][contact key], as ARGV[1] ('r', 'i', 'c', in that order) says. The reply
// is one string, its fields joined by newlines (none holds one: ids, hex, an ISO time, digits): a batch's
// reply is then one flat array, which the client decodes in a third of the time of an array per call.
const CLAIM_SCRIPT = `
local mode, n = ARGV[1], 0
local rate, idem, contact
if string.find(mode, 'r', 1, true) then n = n + 1; rate = KEYS[n] end
if string.find(mode, 'i', 1, true) then n = n + 1; idem = KEYS[n] end
if string.find(mode, 'c', 1, true) then n = n + 1; contact = KEYS[n] end
if rate then
  local used = redis.call('INCR', rate)
  if used == 1 then redis.call('PEXPIRE', rate, ARGV[9]) end
  if used > tonumber(ARGV[8]) then
    local left = redis.call('PTTL', rate)
    if left < 0 then redis.call('PEXPIRE', rate, ARGV[9]); left = tonumber(ARGV[9]) end
    return 'limited\\n' .. left
  end
end
if idem then
  local prior = redis.call('HMGET', idem, 'f', 's', 'r', 'a', 'u', 'd', 'c')
  if prior[1] then
    return table.concat({'replay', prior[1], prior[2], prior[3], prior[4], prior[5], prior[6], prior[7] or '0'}, '\\n')
  end
end
local recordId, known = ARGV[3], '0'
if contact then
  local previous = redis.call('SET', contact, ARGV[4], 'NX', 'GET', 'EX', ARGV[6])
  if previous then
    recordId, known = previous, '1'
    redis.call('EXPIRE', contact, ARGV[6])
  else
    recordId = ARGV[4]
  end
end
if idem then
  redis.call('HSET', idem, 'f', ARGV[2], 's', ARGV[3], 'r', recordId, 'a', ARGV[5], 'u', known, 'd', '0')
  redis.call('EXPIRE', idem, ARGV[7])
end
return 'new\\n' .. recordId .. '\\n' .. known
`;

// Marks an Idempotency-Key's record done (`d`) with its CV outcome (`c`); `EXPIRE … NX` gives the record its
// day back only if it expired in between and HSET made it anew. A script rather than MULTI/EXEC: as atomic,
// one command instead of four, and ioredis builds each `multi()` by copying every script defined on the
// connection (BullMQ's dozens) onto it. KEYS: [idempotency key]. ARGV: cvUploadFailed ('1' or '0'), TTL s.
const MARK_DONE_SCRIPT = `
redis.call('HSET', KEYS[1], 'd', '1', 'c', ARGV[1])
redis.call('EXPIRE', KEYS[1], ARGV[2], 'NX')
return 1
`;

/** Idempotency records are kept a day: long enough for any client's retries, short enough to bound them. */
const IDEMPOTENCY_TTL_SECONDS = 24 * 3600;

/** What a submission claims: see `Claims.claim`. */
export type ClaimRequest = {
  submissionId: string;
  acceptedAt: string;
  /** The lower-cased email and a fresh contact id to claim for it; contact kinds only. */
  contact?: { email: string; candidateId: string; ttlSeconds: number } | undefined;
  idempotency?: { key: string; fingerprint: string } | undefined;
  /** The hashed client address and its allowance; absent when the limit is off. */
  rateLimit?: { client: string; requests: number; windowMs: number } | undefined;
};

/**
 * The submission path's two scripts on the producer's connection, each batched per turn of the event loop
 * (`scriptBatch`): the claims of every request handled in a turn are one EVALSHA, and so are their marks.
 * One slot on a cluster: every key they touch starts with the queue's hash-tagged prefix (submission-keys.ts).
 */
export function createClaims(redis: Redis | Cluster, keys: SubmissionKeys, timeoutMs: number, hold?: TransitionHold) {
  const claimScript = scriptBatch(redis, 'claimSubmission', CLAIM_SCRIPT, timeoutMs);
  const markScript = scriptBatch(redis, 'markIdempotencyDone', MARK_DONE_SCRIPT, timeoutMs);
  return {
    /**
     * Claims what a submission needs before its job is added: a place in its client's rate-limit window
     * (when the limit is on), its contact id (contact kinds) and its Idempotency-Key (when sent). Returns
     * `limited` over the limit, `replay` with the first request's record when the key is known.
     */
    async claim(claim: ClaimRequest): Promise<Claim> {
      const { contact, idempotency, rateLimit } = claim;
      const keyNames: string[] = [];
      let mode = '';
      if (rateLimit) {
        keyNames.push(keys.rateLimit(rateLimit.client));
        mode += 'r';
      }
      if (idempotency) {
        keyNames.push(keys.idempotency(idempotency.key));
        mode += 'i';
      }
      if (contact) {
        keyNames.push(keys.contact(contact.email));
        mode += 'c';
      }
      const args = [
        mode,
        idempotency?.fingerprint ?? '',
        claim.submissionId,
        contact?.candidateId ?? '',
        claim.acceptedAt,
        String(contact?.ttlSeconds ?? 0),
        String(IDEMPOTENCY_TTL_SECONDS),
        String(rateLimit?.requests ?? 0),
        String(rateLimit?.windowMs ?? 0),
      ];
      let raw: string;
      try {
        raw = await claimScript<string>(keyNames, args);
      } catch (err) {
        if (!hold) throw err;
        // Held through a Redis transition: the same claim again, in a later turn's batch. A claim whose
        // first try ran but whose reply was lost finds its own work: the Idempotency-Key's record (a
        // replay, added again under the same ids) and the contact id it set (then answered as known).
        raw = await hold.ride(err, () => claimScript<string>(keyNames, args), {
          key: claim.submissionId,
          bytes: args.reduce((sum, arg) => sum + arg.length, 0),
          last: false,
        });
      }
      const reply = raw.split('\n');
      if (reply[0] === 'new') return { kind: 'new', recordId: reply[1]!, known: reply[2] === '1' };
      if (reply[0] === 'limited') return { kind: 'limited', retryAfterMs: Number(reply[1]) };
      const [, fingerprint, submissionId, recordId, acceptedAt, known, done, cvUploadFailed] = reply;
      return {
        kind: 'replay',
        record: {
          fingerprint: fingerprint!,
          submissionId: submissionId!,
          recordId: recordId!,
          acceptedAt: acceptedAt!,
          known: known === '1',
          done: done === '1',
          cvUploadFailed: cvUploadFailed === '1',
        },
      };
    },

    /** Marks an Idempotency-Key's job as confirmed by Redis, so later retries answer without adding it again. */
    async markDone(key: string, { cvUploadFailed }: { cvUploadFailed: boolean }): Promise<void> {
      await markScript([keys.idempotency(key)], [cvUploadFailed ? '1' : '0', String(IDEMPOTENCY_TTL_SECONDS)]);
    },
  };
}

export type Claims = ReturnType<typeof createClaims>;
