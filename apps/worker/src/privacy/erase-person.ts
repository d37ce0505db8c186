import { setTimeout as sleep } from 'node:timers/promises';
import { DeleteObjectCommand, ListObjectsV2Command } from '@aws-sdk/client-s3';
import type { ObjectStorage } from '@forms/object-storage';
import { scrubPii } from '@forms/observability';
import { findHeld, removeHeld } from '@forms/quarantine';
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
  /** ERASURE_KEY_PREVIOUS in a rotation window: a tombstone is written under it too, for workers not yet moved. */
  previousSecret?: string | undefined;
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
  /** The request field at fault, when it is one. */
  readonly field: 'email' | undefined;
  constructor(message: string, field?: 'email') {
    super(message);
    this.field = field;
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
 * A store that may hold the person is out of reach (its setting missing here, or it does not answer):
 * nothing was changed. `ops erase` exits 1 with the message; the admin route answers 503.
 */
export class EraseOutOfReach extends Error {
  override name = 'EraseOutOfReach';
  readonly store: Store;
  constructor(store: Store, message: string) {
    super(message);
    this.store = store;
  }
}

/**
 * An erase that stopped half-way: what became of each store. The tombstone is down, so nothing of the
 * person is delivered meanwhile; the same erase run again finishes the job (stores are erased in the order
 * bucket, CRM, Redis, so the ids that find the CV objects and the records go last).
 */
export class EraseIncomplete extends Error {
  override name = 'EraseIncomplete';
  readonly stores: Record<Store, string>;
  constructor(stores: Record<Store, string>) {
    super(
      `erase stopped half-way (${Object.entries(stores)
        .map(([store, outcome]) => `${store}: ${outcome}`)
        .join('; ')}); nothing of theirs is delivered meanwhile: run the same erase again`,
    );
    this.stores = stores;
  }
}

type Store = 'bucket' | 'CRM' | 'Redis';

/** What a missing bucket setting is: the worker's own variables, or its route. */
const NO_BUCKET =
  'their records or jobs name a CV, and no bucket is configured here: set S3_BUCKET (and S3_ENDPOINT, ' +
  "AWS_ACCESS_KEY_ID, AWS_SECRET_ACCESS_KEY) as the worker has them, or use the worker's erase route " +
  '(POST /admin/erase); nothing was changed';

/**
 * Erases one person, found by address, from every store: jobs in every state, the spam quarantine, the
 * idempotency records, the contact and recordId indexes, the CRM and the CV objects. All or nothing per
 * store, and honest:
 * 1. reads every store that may hold them (Redis, the CRM, and the bucket when one is configured or any of
 *    their records or jobs names a CV); one out of reach refuses the erase (`EraseOutOfReach`) before
 *    anything changes. A dry run stops here with the counts;
 * 2. the audit trail's `started` entry (with the keyed hash, never the address), then the tombstone, so
 *    from here on the worker refuses any job for the address accepted before now;
 * 3. their active jobs (past the tombstone check already) are waited for, up to `activeWaitMs`, so a CRM
 *    write in flight lands before the CRM erase below, not after;
 * 4. the CV objects, the CRM records, then jobs and Redis records: the ids that find the objects and the
 *    records go last, so a failure half-way (`EraseIncomplete`, by store) leaves what a second run needs;
 * 5. the `completed` audit entry with the counts.
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

  const found = await reach('Redis', async () => {
    const jobs = await findJobs(queue, email);
    const quarantined = await findHeld(redis, ops, (payload) => holdsAddress(payload, email));
    const contactKey = submission.contact(email);
    const contactId = await redis.get(contactKey);
    const knownIds = new Set([...jobs.map((j) => String(j.id)), ...quarantined.map((q) => q.id)]);
    const idempotency = await findIdempotencyRecords(redis, submission.idempotencyPattern, knownIds, contactId);
    const indexKeys = [contactKey, ...(contactId ? [recordIndexKey(queueName, contactId)] : [])];
    // One key at a time: on a cluster the two indexes hash to different slots.
    let indexCount = 0;
    for (const key of indexKeys) indexCount += await redis.exists(key);
    return { jobs, quarantined, knownIds, idempotency, indexKeys, indexCount };
  });
  const { jobs, quarantined, knownIds, idempotency, indexKeys } = found;
  const target = { email, submissionIds: [...knownIds] };
  const crmFound = await reach('CRM', () => deps.crm.erase(target, { dryRun: true }));
  const cvNamed =
    crmFound.cvRecords > 0 || jobs.some((j) => namesCv(j.job.data)) || quarantined.some((q) => namesCv(q.payload));
  if (cvNamed && !deps.storage) throw new EraseOutOfReach('bucket', NO_BUCKET);
  const cvIds = () => [...knownIds, ...crmFound.submissionIds];
  const objects = await reach('bucket', () => findCvObjects(deps.storage, cvIds()));
  const byState: Record<string, number> = {};
  for (const { state } of jobs) byState[state] = (byState[state] ?? 0) + 1;

  if (dryRun)
    return {
      dryRun,
      subject,
      jobs: byState,
      quarantine: quarantined.length,
      idempotencyRecords: idempotency.length,
      indexKeys: found.indexCount,
      crmRecords: crmFound.records,
      cvObjects: objects.length,
      stillActive: [],
    };

  const audit = await recordOpsAction(
    redis,
    ops.audit,
    { actor: deps.actor, action: 'erase', filter: { subject }, jobIds: [...knownIds] },
    { maxEntries: AUDIT_MAX_ENTRIES },
  );
  const stores: Record<Store, string> = { bucket: 'not reached', CRM: 'not reached', Redis: 'tombstone only' };
  let store: Store = 'Redis';
  try {
    const erasedAt = now();
    const tombstones = [subject, ...(deps.previousSecret ? [erasureSubject(deps.previousSecret, email)] : [])];
    const write = redis.multi();
    for (const name of tombstones)
      write.set(
        erasureKeys(settings, queueName).tombstone(name),
        String(erasedAt),
        'PX',
        deps.tombstoneDays * 86_400_000,
      );
    await write.set(erasureKeys(settings, queueName).anyErasure, String(erasedAt), 'NX').exec();
    await waitForActive(jobs, activeWaitMs);

    store = 'bucket';
    // Listed again: a job that was active may have moved its CV from incoming/ to cv/ meanwhile.
    const cvObjects = await findCvObjects(deps.storage, cvIds());
    await deleteObjects(deps.storage, cvObjects);
    stores.bucket = `erased (${cvObjects.length} objects)`;

    store = 'CRM';
    const crm = await deps.crm.erase(target, { dryRun: false });
    stores.CRM = `erased (${crm.records} records)`;

    store = 'Redis';
    const stillActive = await removeJobs(jobs);
    // Why each was held, and with Akismet on the client's address, goes with the payload (the package's removal).
    await removeHeld(
      redis,
      ops,
      quarantined.map((q) => q.id),
    );
    for (const key of idempotency) await redis.del(key);
    let indexRemoved = 0;
    for (const key of indexKeys) indexRemoved += await redis.del(key);
    const report: EraseReport = {
      dryRun,
      subject,
      jobs: byState,
      quarantine: quarantined.length,
      idempotencyRecords: idempotency.length,
      indexKeys: indexRemoved,
      crmRecords: crm.records,
      cvObjects: cvObjects.length,
      stillActive,
    };
    await audit.complete({
      outcome: stillActive.length === 0 ? 'ok' : 'partial',
      count: jobs.length - stillActive.length,
      detail: { ...report, subject: undefined, dryRun: undefined, stillActive: stillActive.length },
    });
    return report;
  } catch (err) {
    // Only the error's class in the audit trail and the report: a driver's message may quote a value.
    stores[store] = `failed (${(err as Error).name}: ${scrubPii((err as Error).message, [email])})`;
    await audit
      .complete({ outcome: 'failed', count: 0, detail: { error: (err as Error).name, stores } })
      .catch(() => undefined);
    throw new EraseIncomplete(stores);
  }
}

/** `work`, with a failure turned into EraseOutOfReach naming the store: nothing is changed before this. */
async function reach<T>(store: Store, work: () => Promise<T>): Promise<T> {
  try {
    return await work();
  } catch (err) {
    if (err instanceof EraseOutOfReach) throw err;
    const reason = scrubPii(`${(err as Error).name}: ${(err as Error).message}`);
    throw new EraseOutOfReach(store, `could not read the ${store} (${reason}); nothing was changed`);
  }
}

/** A careers job (or quarantined entry) whose CV was staged in the bucket. */
function namesCv(payload: unknown): boolean {
  const data = (payload as { data?: { stagedCv?: unknown } } | undefined)?.data;
  return typeof data?.stagedCv === 'object' && data.stagedCv !== null;
}

type FoundJob = { job: Job; id: string; state: string };

/** The jobs in every state whose payload holds `email` (lower-cased); `ops show <email>` reads them too. */
export async function findJobs(queue: Queue, email: string): Promise<FoundJob[]> {
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

export function holdsAddress(payload: unknown, email: string): boolean {
  const p = payload as { kind?: SubmissionKind; data?: object } | undefined;
  if (!p?.kind || !p.data || typeof p.data !== 'object') return false;
  try {
    return submissionEmail({ kind: p.kind, data: p.data }).toLowerCase() === email;
  } catch {
    return false; // a kind this version does not know
  }
}

/** Waits (bounded, polling each 100 ms) until none of these jobs is active. */
async function waitForActive(jobs: FoundJob[], activeWaitMs: number): Promise<void> {
  const deadline = Date.now() + activeWaitMs;
  let active = jobs.filter((j) => j.state === 'active');
  for (let turn = 0; active.length > 0 && turn < activeWaitMs / 100 + 2 && Date.now() < deadline; turn++) {
    await sleep(100);
    const states = await Promise.all(active.map((j) => j.job.getState()));
    active = active.filter((_, i) => states[i] === 'active');
  }
}

/** Removes jobs; answers the ids still active (waitForActive ran out first), left for a second run. */
async function removeJobs(jobs: FoundJob[]): Promise<string[]> {
  const stillActive: string[] = [];
  for (const found of jobs) {
    try {
      await found.job.remove();
    } catch (err) {
      const state = await found.job.getState().catch(() => 'unknown');
      if (state === 'unknown') continue; // gone meanwhile
      if (state !== 'active') throw err;
      stillActive.push(found.id);
    }
  }
  return stillActive;
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

/** What erases a person: `erasePerson` wired to a worker's stores (open-eraser.ts), or a running worker asked over its socket. */
export type Eraser = {
  erase(address: string, options: { dryRun: boolean; activeWaitMs?: number }): Promise<EraseReport>;
  close(): Promise<void>;
};
