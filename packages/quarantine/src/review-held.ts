import { type OpsAction, recordOpsAction } from '@forms/runtime';
import {
  AUDIT_MAX_ENTRIES,
  endpointFor,
  JOB_OPTIONS,
  type JobPayload,
  jobNameFor,
  type opsKeys,
  parseJobPayload,
  type SpamJudgement,
} from '@forms/schemas';
import { type AkismetSettings, akismetCall, freeTexts, spamFeatures, trainSpamModel } from '@forms/spam-filter';
import type { Queue } from 'bullmq';
import { markHeldReviewed, type QuarantineRedis, readHeld, removeHeld } from './held-submissions.ts';

/**
 * What a review needs, from whichever surface runs it (`ops spam`, the admin page): the same operations
 * behind both, each recorded in the audit trail under the surface's `actor` (OPS_ACTOR or the OS user for
 * the CLI, `admin-page` for the admin wing's page).
 */
export type ReviewDeps = {
  redis: QuarantineRedis;
  queue: Queue;
  keys: Pick<ReturnType<typeof opsKeys>, 'spamIndex' | 'spamData' | 'spamReasons' | 'spamModel' | 'audit'>;
  actor: string;
  akismet?: AkismetSettings | undefined;
  /** Where to say what did not stop the action (Akismet unreachable). */
  warn: (text: string) => void;
};

function audit(deps: ReviewDeps, action: Omit<OpsAction, 'actor'>) {
  return recordOpsAction(
    deps.redis,
    deps.keys.audit,
    { actor: deps.actor, ...action },
    { maxEntries: AUDIT_MAX_ENTRIES },
  );
}

export type Released = {
  released: string[];
  alreadyReleased: string[];
  missing: string[];
  malformed: Record<string, string>;
};

/**
 * Queues held submissions for the CRM under their own ids (BullMQ keeps one job per id: a second release, or
 * one racing this, adds nothing), takes each out of the quarantine once the queue holds it (a crash between
 * leaves it to release again), and teaches the filter "not spam". Not held: already released when the queue
 * holds its job, else missing. A malformed entry is neither, and never released.
 */
export async function releaseHeld(deps: ReviewDeps, ids: string[]): Promise<Released> {
  const held = await readHeld(deps.redis, deps.keys, ids);
  const found = ids.filter((id) => held.get(id)?.payload);
  const audited = await audit(deps, { action: 'spam release', filter: { ids }, jobIds: found });
  const released: string[] = [];
  try {
    for (const id of found) {
      const { payload, judgement } = held.get(id)!;
      // A job the worker's judge held stays in the queue, completed, until the worker removes it: an add under
      // its id would be a no-op, so it goes first (a job that delivered is never one that held).
      const before = await deps.queue.getJob(payload!.submissionId);
      if ((before?.returnvalue as { held?: boolean } | null | undefined)?.held) await before!.remove().catch(() => {});
      await deps.queue.add(jobNameFor(payload!.kind), payload!, { ...JOB_OPTIONS, jobId: payload!.submissionId });
      await removeHeld(deps.redis, deps.keys, [id]);
      released.push(id);
      await teachSubmission(deps, payload!, 'ham', judgement);
    }
  } catch (err) {
    await audited.complete({ outcome: 'failed', count: released.length, detail: { error: (err as Error).message } });
    throw err;
  }
  const malformed = Object.fromEntries(
    [...held.values()].filter((h) => h.malformed).map((h) => [h.id, h.malformed!] as const),
  );
  const alreadyReleased: string[] = [];
  const missing: string[] = [];
  for (const id of ids.filter((id) => !held.has(id)))
    ((await deps.queue.getJob(id)) ? alreadyReleased : missing).push(id);
  await audited.complete({
    outcome: 'ok',
    count: released.length,
    detail: {
      alreadyReleased: alreadyReleased.length,
      missing: missing.length,
      malformed: Object.keys(malformed).length,
    },
  });
  return { released, alreadyReleased, missing, malformed };
}

export type Marked = {
  taught: string[];
  already: string[];
  missing: string[];
  /** Of those taught (now or before), the ones still held: marking never releases (release does). */
  held: string[];
  /** Of those taught, the ones read from a completed job: delivered, so their CRM records are the caller's to mark. */
  delivered: string[];
};

/**
 * Teaches the content filter that submissions are spam (or ham): held ones, which stay held with the
 * reviewed mark on them, or delivered ones the queue still has (completed jobs are kept a day). Twice is
 * harmless: the model counts a submission's label once.
 */
export async function markSubmissions(deps: ReviewDeps, ids: string[], label: 'spam' | 'ham'): Promise<Marked> {
  const held = await readHeld(deps.redis, deps.keys, ids);
  const audited = await audit(deps, { action: 'spam mark', filter: { ids, label }, jobIds: ids });
  const result: Marked = { taught: [], already: [], missing: [], held: [], delivered: [] };
  for (const id of ids) {
    const entry = held.get(id);
    let payload = entry?.payload;
    if (!payload) {
      const job = await deps.queue.getJob(id);
      const read = job ? parseJobPayload(JSON.stringify(job.data)) : undefined;
      payload = read && 'payload' in read ? read.payload : undefined;
      if (payload && (await job!.isCompleted())) result.delivered.push(id);
    }
    if (!payload) {
      result.missing.push(id);
      continue;
    }
    ((await teachSubmission(deps, payload, label, entry?.judgement)) ? result.taught : result.already).push(id);
    if (entry?.payload) {
      const reviewed = { label, at: new Date().toISOString(), by: deps.actor };
      if (await markHeldReviewed(deps.redis, deps.keys, entry, reviewed)) result.held.push(id);
    }
  }
  await audited.complete({
    outcome: 'ok',
    count: result.taught.length,
    detail: { already: result.already.length, missing: result.missing.length, held: result.held.length },
  });
  return result;
}

/** Drops held submissions for good (the ids, or every one held); how many were there. */
export async function purgeHeld(deps: ReviewDeps, target: { ids: string[] } | { all: true }): Promise<number> {
  const ids = 'all' in target ? await deps.redis.zrange(deps.keys.spamIndex, '0', '-1') : target.ids;
  const audited = await audit(deps, {
    action: 'spam purge',
    filter: 'all' in target ? { all: true } : { ids },
    jobIds: ids,
  });
  const count = await removeHeld(deps.redis, deps.keys, ids);
  await audited.complete({ outcome: 'ok', count });
  return count;
}

/**
 * One held submission unmasked (`ops spam show --reveal`, the page's reveal): personal data shown to a
 * person, so recorded in the audit trail (who, which id, when) before it is read. Undefined when not held.
 */
export async function revealHeld(deps: ReviewDeps, id: string) {
  const audited = await audit(deps, { action: 'spam reveal', filter: { id }, jobIds: [id] });
  const entry = (await readHeld(deps.redis, deps.keys, [id])).get(id);
  await audited.complete({ outcome: entry ? 'ok' : 'failed', count: entry ? 1 : 0 });
  return entry;
}

/**
 * Teaches the shared model one submission's label (the gateways re-read it within SPAM_MODEL_REFRESH_SECONDS):
 * its free text's features, hashed, never its words. True when the model changed. With Akismet on, and the
 * client's address kept with a held submission (Akismet requires it), Akismet is told too (submit-spam or
 * submit-ham), once, when the model changed; a delivered submission kept no address and is taught locally only.
 */
export async function teachSubmission(
  deps: ReviewDeps,
  payload: JobPayload,
  label: 'spam' | 'ham',
  judgement: SpamJudgement | undefined,
): Promise<boolean> {
  const emailField = endpointFor(payload.kind).emailField;
  const texts = freeTexts(payload.data, emailField);
  const changed = await trainSpamModel(
    deps.redis,
    deps.keys.spamModel,
    payload.submissionId,
    label,
    spamFeatures(texts),
  );
  if (changed && deps.akismet && judgement?.client) {
    const told = await akismetCall(deps.akismet, label === 'spam' ? 'submit-spam' : 'submit-ham', {
      ...judgement.client,
      email: String((payload.data as Record<string, unknown>)[emailField] ?? ''),
      content: texts.join('\n'),
    });
    if ('unavailable' in told) deps.warn(`akismet not told about ${payload.submissionId}: ${told.unavailable}`);
  }
  return changed;
}

/** The label ops taught each submission as (the model keeps `t:<id>`), for those taught. */
export async function taughtLabels(redis: QuarantineRedis, modelKey: string, ids: string[]) {
  const labels = new Map<string, 'spam' | 'ham'>();
  if (ids.length === 0) return labels;
  const values = await redis.hmget(modelKey, ...ids.map((id) => `t:${id}`));
  ids.forEach((id, i) => {
    if (values[i] === 'spam' || values[i] === 'ham') labels.set(id, values[i] as 'spam' | 'ham');
  });
  return labels;
}
