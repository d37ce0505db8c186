import { maskPii } from '@forms/observability';
import {
  type JobPayload,
  opsKeys,
  parseJobPayload,
  type SpamJudgement,
  SpamJudgementSchema,
  type SpamLayer,
} from '@forms/schemas';
import type { Cluster, Redis } from 'ioredis';
import * as v from 'valibot';

/**
 * The quarantine's layout, owned here (the hold beside it writes it; ops, the admin page and erase read and
 * remove through this module): three keys under the queue's prefix, all keyed by submission id, no PII in a
 * name. `index` (zset): id scored by when it was held (epoch ms). `data` (hash): id → the job payload it
 * would have been queued as. `reasons` (hash): id → its SpamJudgement (the layers' reasons, the filter's
 * score, the agent, with Akismet on the client's address, and once reviewed the mark ops left on it).
 */
export type QuarantineKeys = Pick<ReturnType<typeof opsKeys>, 'spamIndex' | 'spamData' | 'spamReasons'>;
export type QuarantineRedis = Redis | Cluster;

/** The quarantine's keys for a queue. */
export function quarantineKeys(...args: Parameters<typeof opsKeys>): QuarantineKeys {
  const { spamIndex, spamData, spamReasons } = opsKeys(...args);
  return { spamIndex, spamData, spamReasons };
}

/** Ids read (HMGET) per round trip: a page of a list, or a slice of a long id list. */
const PAGE = 500;
/** The most held submissions a filtered list examines per request, so a rare reason cannot make it scan all. */
export const HELD_SCAN_MAX = 2_000;

export type HeldSubmission = {
  id: string;
  /** When it was held (epoch ms), from the index; absent for an id read directly and no longer indexed. */
  heldAt?: number;
  payload?: JobPayload;
  /** What is wrong with an entry that does not parse as a job payload (never released; purge it). */
  malformed?: string;
  /** Absent for one held before reasons were kept. */
  judgement?: SpamJudgement;
};

/**
 * The held entries of `ids` that are still there, a page of HMGETs at a time, each payload read through the
 * job catalog's schema: one that does not parse is reported as malformed, never cast to a payload.
 */
export async function readHeld(redis: QuarantineRedis, keys: QuarantineKeys, ids: string[]) {
  const held = new Map<string, HeldSubmission>();
  for (let i = 0; i < ids.length; i += PAGE) {
    const page = ids.slice(i, i + PAGE);
    const [data, reasons] = await Promise.all([
      redis.hmget(keys.spamData, ...page),
      redis.hmget(keys.spamReasons, ...page),
    ]);
    page.forEach((id, j) => {
      if (!data[j]) return;
      const read = parseJobPayload(data[j]!);
      const judgement = parseJudgement(reasons[j]);
      held.set(id, {
        id,
        ...('payload' in read ? { payload: read.payload } : { malformed: read.problem }),
        ...(judgement ? { judgement } : {}),
      });
    });
  }
  return held;
}

function parseJudgement(text: string | null | undefined): SpamJudgement | undefined {
  if (!text) return undefined;
  try {
    const parsed = v.safeParse(SpamJudgementSchema, JSON.parse(text));
    return parsed.success ? parsed.output : undefined;
  } catch {
    return undefined; // not JSON: shown as no reasons kept
  }
}

export type HeldQuery = {
  /** Position in the newest-first list (of those in the age window) to start at. */
  offset?: number;
  limit: number;
  /** Only those held for at least / at most this long. */
  minAgeMs?: number;
  maxAgeMs?: number;
  /** Only those with a reason of this layer, and/or this code (`rules:link-bot` or just `link-bot`). */
  layer?: SpamLayer;
  reason?: string;
  now: number;
};

export type HeldPage = {
  /** Held in the age window (before the layer/reason narrowing, which would need a scan of them all). */
  total: number;
  rows: (HeldSubmission & { heldAt: number })[];
  /** The offset of the next page, when there may be one. */
  next?: number;
};

/**
 * One page of the quarantine, newest first: the ids from the index (ZREVRANGEBYSCORE over the age window,
 * LIMIT offset count), then one HMGET of each hash for the page. Narrowed by layer or reason, it reads the
 * reasons a page at a time and stops after HELD_SCAN_MAX entries, handing back where it stopped: a request
 * costs at most a few round trips however many are held, so browsing it never queues behind the gateway's adds.
 */
export async function listHeld(redis: QuarantineRedis, keys: QuarantineKeys, query: HeldQuery): Promise<HeldPage> {
  const max = query.minAgeMs === undefined ? '+inf' : String(query.now - query.minAgeMs);
  const min = query.maxAgeMs === undefined ? '-inf' : String(query.now - query.maxAgeMs);
  const narrowed = query.layer !== undefined || Boolean(query.reason);
  const total = await redis.zcount(keys.spamIndex, min, max);
  let position = query.offset ?? 0;
  const rows: HeldPage['rows'] = [];
  let scanned = 0;
  while (rows.length < query.limit && position < total && (!narrowed || scanned < HELD_SCAN_MAX)) {
    const count = narrowed ? Math.min(PAGE, HELD_SCAN_MAX - scanned) : query.limit - rows.length;
    const flat = await redis.zrevrangebyscore(keys.spamIndex, max, min, 'WITHSCORES', 'LIMIT', position, count);
    if (flat.length === 0) break;
    const ids: string[] = [];
    const heldAt = new Map<string, number>();
    for (let i = 0; i < flat.length; i += 2) {
      ids.push(flat[i]!);
      heldAt.set(flat[i]!, Number(flat[i + 1]));
    }
    // Narrowed, the reasons are read first and only the matches' payloads: a scan reads no payload it drops.
    const wanted = narrowed ? await matching(redis, keys, ids, query) : ids;
    const held = await readHeld(redis, keys, wanted.slice(0, query.limit - rows.length));
    let used = 0;
    for (const id of ids) {
      used++;
      const entry = held.get(id);
      if (!entry) continue;
      rows.push({ ...entry, heldAt: heldAt.get(id)! });
      if (rows.length === query.limit) break;
    }
    position += used;
    scanned += used;
  }
  return { total, rows, ...(position < total ? { next: position } : {}) };
}

/** Of `ids`, in order, those whose kept reasons match the query's layer and reason. */
async function matching(redis: QuarantineRedis, keys: QuarantineKeys, ids: string[], query: HeldQuery) {
  const reasons = await redis.hmget(keys.spamReasons, ...ids);
  return ids.filter((_, i) => matches(parseJudgement(reasons[i]), query));
}

function matches(judgement: SpamJudgement | undefined, { layer, reason }: HeldQuery): boolean {
  return (judgement?.reasons ?? []).some(
    (r) =>
      (layer === undefined || r.layer === layer) && (!reason || reason === r.code || reason === `${r.layer}:${r.code}`),
  );
}

/** `layer:code` or `layer:code (detail)`: the detail is configuration or a score, never the submitter's text. */
export function reasonLabel(r: SpamJudgement['reasons'][number]): string {
  return `${r.layer}:${r.code}${r.detail ? ` (${r.detail})` : ''}`;
}

/**
 * A held submission as shown unrevealed (`ops spam show`, the admin page): its fields masked as `ops show`
 * masks them, the client's address (personal data, kept with Akismet on) starred. The one masking of both.
 */
export function maskHeld(entry: HeldSubmission): { data: unknown; judgement: SpamJudgement | undefined } {
  const { judgement } = entry;
  return {
    data: maskPii(entry.payload?.data),
    judgement: judgement?.client ? { ...judgement, client: { ip: '***' } } : judgement,
  };
}

/** Removes held submissions with everything kept beside them (release, purge, erase); how many were held. */
export async function removeHeld(redis: QuarantineRedis, keys: QuarantineKeys, ids: readonly string[]) {
  let removed = 0;
  for (let i = 0; i < ids.length; i += PAGE) {
    const page = ids.slice(i, i + PAGE);
    const [[, gone] = []] =
      (await redis
        .multi()
        .zrem(keys.spamIndex, ...page)
        .hdel(keys.spamData, ...page)
        .hdel(keys.spamReasons, ...page)
        .exec()) ?? [];
    removed += Number(gone ?? 0);
  }
  return removed;
}

/**
 * Held entries whose raw payload `match`es (erase looks for a person's): HSCAN over the data hash, bounded
 * by the quarantine's own bound (QUARANTINE_MAX), 500 a call.
 */
export async function findHeld(
  redis: QuarantineRedis,
  keys: QuarantineKeys,
  match: (payload: unknown) => boolean,
): Promise<{ id: string; payload: unknown }[]> {
  const found: { id: string; payload: unknown }[] = [];
  let cursor = '0';
  for (let turn = 0; turn < 10_000; turn++) {
    const [next, flat] = await redis.hscan(keys.spamData, cursor, 'COUNT', PAGE);
    for (let i = 0; i < flat.length; i += 2) {
      let payload: unknown;
      try {
        payload = JSON.parse(flat[i + 1]!);
      } catch {
        continue;
      }
      if (match(payload)) found.push({ id: flat[i]!, payload });
    }
    cursor = next;
    if (cursor === '0') break;
  }
  return found;
}

// Sets the reviewed mark only while the submission is held: a release or purge racing the mark leaves no
// orphan judgement behind. KEYS: [index][reasons]. ARGV: id, the judgement with its mark.
const MARK_SCRIPT = `
if redis.call('ZSCORE', KEYS[1], ARGV[1]) then
  redis.call('HSET', KEYS[2], ARGV[1], ARGV[2])
  return 1
end
return 0
`;

/** Leaves the reviewed mark on a held submission (it stays held); false when it is no longer held. */
export async function markHeldReviewed(
  redis: QuarantineRedis,
  keys: QuarantineKeys,
  entry: HeldSubmission,
  reviewed: NonNullable<SpamJudgement['reviewed']>,
): Promise<boolean> {
  const judgement: SpamJudgement = { ...(entry.judgement ?? { reasons: [] }), reviewed };
  const set = await redis.eval(MARK_SCRIPT, 2, keys.spamIndex, keys.spamReasons, entry.id, JSON.stringify(judgement));
  return set === 1;
}
