import { setTimeout as sleep } from 'node:timers/promises';
import { DeleteObjectCommand, ListObjectsV2Command } from '@aws-sdk/client-s3';
import type { ObjectStorage } from '@forms/object-storage';
import { recordOpsAction } from '@forms/runtime';
import {
  AUDIT_MAX_ENTRIES,
  erasureKeys,
  erasureSubject,
  opsKeys,
  type RedisSettings,
  recordIndexKey,
  type SubmissionKind,
  submissionEmail,
  submissionKeys,
} from '@forms/schemas';
import type { Job, Queue } from 'bullmq';
import { Cluster, type Redis } from 'ioredis';
import type { Crm } from '../crm/crm.ts';

/** Every state a job can be found in; `active` ones are waited for, the rest removed at once. */
const JOB_STATES = ['waiting', 'prioritized', 'delayed', 'waiting-children', 'failed', 'completed', 'active'];
const PAGE = 500;
/** Pages read per state: 500,000 jobs, far past the completed set's 50,000 bound. */
const MAX_PAGES = 1_000;

export type EraseDeps = {
  queue: Queue;
  redis: Redis | Cluster;
  settings: Pick<RedisSettings, 'prefix'>;
  queueName: string;
  crm: Crm;
  storage: ObjectStorage | undefined;
  /** ERASURE_KEY. */
  secret: string;
  tombstoneDays: number;
  /** Who the audit trail names. */
  actor: string;
  now?: () => number;
};

export type EraseReport = {
  dryRun: boolean;
  /** The keyed hash of the address, as the tombstone and the audit entry hold it. */
  subject: string;
  /** Jobs found (dry run) or removed, by the state they were found in. */
  jobs: Record<string, number>;
  quarantine: number;
  idempotencyRecords: number;
  /** The contact index entry and the recordId → submissions index. */
  indexKeys: number;
  crmRecords: number;
  cvObjects: number;
  /** Active jobs still running when `activeWaitMs` ran out: erase again once they end. */
  stillActive: string[];
};

/** A bad address or missing configuration: the caller's to fix (a 4xx, exit 2), never retried. */
export class EraseRefused extends Error {
  override name = 'EraseRefused';
  constructor(
    message: string,
    /** The request field at fault, when it is one. */
    readonly field?: 'email',
  ) {
    super(message);
  }
}

/** The address as the gateway stored it (trimmed, lower-cased), or EraseRefused naming the field. */
export function erasableAddress(address: string): string {
  const email = address.trim().toLowerCase();
  if (!/^[^\s@]+@[^\s@]+$/.test(email) || email.length > 320)
    throw new EraseRefused('email is not an email address', 'email');
  return email;
}

/**
 * Erases one person, found by address, from every store: jobs in every state, the spam quarantine, the
 * idempotency records, the contact and recordId indexes, the CRM and the CV objects. Order matters:
 * 1. the audit trail's `started` entry (with the keyed hash, never the address), then the tombstone, so
 *    from here on the worker refuses any job for the address accepted before now;
 * 2. jobs and Redis records go; an active job (past the tombstone check already) is waited for, up to
 *    `activeWaitMs`, then removed, so its CRM write lands before the CRM erase below, not after;
 * 3. the CRM records and the CV objects (by submission id, from the queue and from the CRM itself);
 * 4. the `completed` audit entry with the counts.
 * With `dryRun` it only reads (the CRM and storage included) and counts what it would remove.
 */
export async function erasePerson(
  deps: EraseDeps,
  address: string,
  { dryRun, activeWaitMs = 60_000 }: { dryRun: boolean; activeWaitMs?: number },
): Promise<EraseReport> {
  const email = erasableAddress(address);
  const now = deps.now ?? Date.now;
  const subject = erasureSubject(deps.secret, email);
  const { redis, queue, settings, queueName } = deps;
  const submission = submissionKeys(settings, queueName);
  const ops = opsKeys(settings, queueName);

  const jobs = await findJobs(queue, email);
  const quarantined = await findQuarantined(redis, ops.spamData, email);
  const contactKey = submission.contact(email);
  const contactId = await redis.get(contactKey);
  const knownIds = new Set([...jobs.map((j) => String(j.id)), ...quarantined]);
  const idempotency = await findIdempotencyRecords(redis, submission.idempotencyPattern, knownIds, contactId);
  const indexKeys = [contactKey, ...(contactId ? [recordIndexKey(queueName, contactId)] : [])];
  // One key at a time: on a cluster the two indexes hash to different slots.
  let indexCount = 0;
  if (dryRun) for (const key of indexKeys) indexCount += await redis.exists(key);
  const byState: Record<string, number> = {};
  for (const { state } of jobs) byState[state] = (byState[state] ?? 0) + 1;

  if (dryRun) {
    const crmFound = await deps.crm.erase({ email, submissionIds: [...knownIds] }, { dryRun: true });
    const objects = await findCvObjects(deps.storage, [...knownIds, ...crmFound.submissionIds]);
    return {
      dryRun,
      subject,
      jobs: byState,
      quarantine: quarantined.length,
      idempotencyRecords: idempotency.length,
      indexKeys: indexCount,
      crmRecords: crmFound.records,
      cvObjects: objects.length,
      stillActive: [],
    };
  }

  const audit = await recordOpsAction(
    redis,
    ops.audit,
    { actor: deps.actor, action: 'erase', filter: { subject }, jobIds: [...knownIds] },
    { maxEntries: AUDIT_MAX_ENTRIES },
  );
  try {
    const erasedAt = now();
    await redis
      .multi()
      .set(erasureKeys(settings, queueName).tombstone(subject), String(erasedAt), 'PX', deps.tombstoneDays * 86_400_000)
      .set(erasureKeys(settings, queueName).anyErasure, String(erasedAt), 'NX')
      .exec();

    const stillActive = await removeJobs(jobs, activeWaitMs);
    if (quarantined.length > 0)
      await redis
        .multi()
        .zrem(ops.spamIndex, ...quarantined)
        .hdel(ops.spamData, ...quarantined)
        .exec();
    for (const key of idempotency) await redis.del(key);
    let indexRemoved = 0;
    for (const key of indexKeys) indexRemoved += await redis.del(key);

    const crm = await deps.crm.erase({ email, submissionIds: [...knownIds] }, { dryRun: false });
    const objects = await findCvObjects(deps.storage, [...knownIds, ...crm.submissionIds]);
    await deleteObjects(deps.storage, objects);
    const report: EraseReport = {
      dryRun,
      subject,
      jobs: byState,
      quarantine: quarantined.length,
      idempotencyRecords: idempotency.length,
      indexKeys: indexRemoved,
      crmRecords: crm.records,
      cvObjects: objects.length,
      stillActive,
    };
    await audit.complete({
      outcome: stillActive.length === 0 ? 'ok' : 'partial',
      count: jobs.length - stillActive.length,
      detail: { ...report, subject: undefined, dryRun: undefined, stillActive: stillActive.length },
    });
    return report;
  } catch (err) {
    await audit
      .complete({ outcome: 'failed', count: 0, detail: { error: (err as Error).name } })
      .catch(() => undefined);
    throw err;
  }
}

type FoundJob = { job: Job; id: string; state: string };

async function findJobs(queue: Queue, email: string): Promise<FoundJob[]> {
  const found: FoundJob[] = [];
  const seen = new Set<string>();
  for (const state of JOB_STATES) {
    for (let page = 0; page < MAX_PAGES; page++) {
      const batch = await queue.getJobs([state as 'waiting'], page * PAGE, (page + 1) * PAGE - 1, true);
      for (const job of batch) {
        if (!job?.id || seen.has(job.id) || !holdsAddress(job.data, email)) continue;
        seen.add(job.id);
        found.push({ job, id: job.id, state });
      }
      if (batch.length < PAGE) break;
    }
  }
  return found;
}

function holdsAddress(payload: unknown, email: string): boolean {
  const p = payload as { kind?: SubmissionKind; data?: object } | undefined;
  if (!p?.kind || !p.data || typeof p.data !== 'object') return false;
  try {
    return submissionEmail({ kind: p.kind, data: p.data }).toLowerCase() === email;
  } catch {
    return false; // a kind this version does not know
  }
}

/** Removes jobs; an active one is waited for (bounded), then removed. Answers the ids still active. */
async function removeJobs(jobs: FoundJob[], activeWaitMs: number): Promise<string[]> {
  const deadline = Date.now() + activeWaitMs;
  const pending = [...jobs];
  const stillActive: string[] = [];
  // Bounded: every job is tried until the deadline, polling each 100 ms.
  for (let turn = 0; pending.length > 0 && turn < activeWaitMs / 100 + 2; turn++) {
    for (const found of pending.splice(0)) {
      try {
        await found.job.remove();
      } catch (err) {
        const state = await found.job.getState().catch(() => 'unknown');
        if (state === 'unknown') continue; // gone meanwhile
        if (state !== 'active') throw err;
        pending.push(found);
      }
    }
    if (pending.length === 0 || Date.now() > deadline) break;
    await sleep(100);
  }
  for (const { id } of pending) stillActive.push(id);
  return stillActive;
}

async function findQuarantined(redis: Redis | Cluster, dataKey: string, email: string): Promise<string[]> {
  const ids: string[] = [];
  let cursor = '0';
  // Bounded by the quarantine's own bound (QUARANTINE_MAX): at most that many entries, 500 a call.
  for (let turn = 0; turn < 10_000; turn++) {
    const [next, flat] = await redis.hscan(dataKey, cursor, 'COUNT', 500);
    for (let i = 0; i < flat.length; i += 2) {
      let payload: unknown;
      try {
        payload = JSON.parse(flat[i + 1]!);
      } catch {
        continue;
      }
      if (holdsAddress(payload, email)) ids.push(flat[i]!);
    }
    cursor = next;
    if (cursor === '0') break;
  }
  return ids;
}

/** Idempotency records (a day's worth) whose submission is one of the person's, or whose recordId is theirs. */
async function findIdempotencyRecords(
  redis: Redis | Cluster,
  pattern: string,
  submissionIds: Set<string>,
  contactId: string | null,
): Promise<string[]> {
  const nodes = redis instanceof Cluster ? redis.nodes('master') : [redis];
  const found: string[] = [];
  for (const node of nodes) {
    let cursor = '0';
    for (let turn = 0; turn < 100_000; turn++) {
      const [next, keys] = await node.scan(cursor, 'MATCH', pattern, 'COUNT', 1000);
      for (const key of keys) {
        const [s, r] = await redis.hmget(key, 's', 'r');
        if ((s && submissionIds.has(s)) || (contactId && r === contactId)) found.push(key);
      }
      cursor = next;
      if (cursor === '0') break;
    }
  }
  return found;
}

/** The CV objects (staged and final) of these submissions. */
async function findCvObjects(storage: ObjectStorage | undefined, submissionIds: string[]): Promise<string[]> {
  if (!storage) return [];
  const keys = new Set<string>();
  for (const id of new Set(submissionIds)) {
    if (!/^[\w-]+$/.test(id)) continue;
    for (const prefix of [`incoming/cv/${id}.`, `cv/${id}.`]) {
      const listed = await storage.client.send(
        new ListObjectsV2Command({ Bucket: storage.bucket, Prefix: prefix, MaxKeys: 10 }),
        { abortSignal: AbortSignal.timeout(storage.timeoutMs) },
      );
      for (const object of listed.Contents ?? []) if (object.Key) keys.add(object.Key);
    }
  }
  return [...keys];
}

async function deleteObjects(storage: ObjectStorage | undefined, keys: string[]): Promise<void> {
  if (!storage) return;
  // One by one: a person has a handful, and not every S3-compatible server takes DeleteObjects' checksum.
  for (const Key of keys)
    await storage.client.send(new DeleteObjectCommand({ Bucket: storage.bucket, Key }), {
      abortSignal: AbortSignal.timeout(storage.timeoutMs),
    });
}
