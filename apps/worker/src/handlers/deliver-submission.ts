import { annotateSpan, withSpan } from '@forms/observability';
import { JOBS, type JobName } from '@forms/schemas';
import { type Job, UnrecoverableError } from 'bullmq';
import * as v from 'valibot';
import { type Crm, type DeliveryResult, PermanentCrmError } from '../crm/crm.ts';
import { removeStagedCv } from '../storage/finalise-cv.ts';
import { attachCv, type CvDeps, dropStagedCv } from './attach-cv.ts';
import { type HeldResult, type JudgeDeps, judgeJob } from './judge-job.ts';
import { blankErasedJob, type ErasureCheck } from './refuse-erased.ts';

/** What a job refused for an erased address completes with: nothing was written. */
export type ErasedResult = { erased: true };

/**
 * Re-parses the job against its catalog schema, judges it (once: judge-job.ts), then writes it to the CRM. A payload that fails its
 * schema, an unknown job name or a CRM rejection fails at once (no retry can fix them); anything else is
 * thrown as is and retried on the backoff schedule. A job for an address erased after it was accepted is
 * refused here, before the CV step and any CRM driver: its payload is blanked, its staged CV dropped, and
 * it completes as `{erased: true}`. One the judge holds goes to the quarantine and completes as `{held: true}`.
 */
export async function deliverSubmission(
  job: Job,
  crm: Crm,
  cvDeps: CvDeps,
  isErased: ErasureCheck,
  judgeDeps: JudgeDeps,
): Promise<DeliveryResult | ErasedResult | HeldResult> {
  // The attempt's consumer span (tracing on) says which submission, which attempt, and how it ended.
  const attempt = job.attemptsMade + 1;
  annotateSpan({ 'submission.id': String(job.id), 'submission.kind': job.name, 'submission.attempt': attempt });
  try {
    const result = await deliver(job, crm, cvDeps, isErased, judgeDeps);
    annotateSpan({ 'submission.outcome': 'erased' in result ? 'erased' : 'held' in result ? 'held' : 'delivered' });
    return result;
  } catch (err) {
    const final = err instanceof UnrecoverableError || attempt >= (job.opts.attempts ?? 1);
    annotateSpan({ 'submission.outcome': final ? 'failed' : 'retrying' });
    throw err;
  }
}

async function deliver(
  job: Job,
  crm: Crm,
  cvDeps: CvDeps,
  isErased: ErasureCheck,
  judgeDeps: JudgeDeps,
): Promise<DeliveryResult | ErasedResult | HeldResult> {
  const schema = JOBS[job.name as JobName];
  if (!schema) throw new UnrecoverableError(`Unknown job name "${job.name}"`);
  const parsed = v.safeParse(schema, job.data);
  if (!parsed.success) {
    throw new UnrecoverableError(`Payload does not match ${job.name}: ${describeIssue(parsed.issues[0])}`);
  }
  annotateSpan({ 'submission.kind': parsed.output.kind, 'request.id': parsed.output.requestId });
  if (await isErased(parsed.output)) {
    const staged = parsed.output.kind === 'careers-apply' ? parsed.output.data.stagedCv : undefined;
    if (staged && cvDeps.storage) await removeStagedCv(cvDeps.storage, staged);
    await blankErasedJob(job, parsed.output);
    return { erased: true };
  }
  // The judge, before anything leaves for the CRM: a held job goes no further (its staged CV stays, for a release).
  const judged = await judgeJob(job, parsed.output, judgeDeps);
  if (!judged) return { held: true };
  // A careers CV is finalised in object storage before the CRM write, so the record links a stored file.
  const submission = await attachCv(job, judged, cvDeps);
  let result: DeliveryResult;
  try {
    result = await withSpan('crm.write', { kind: 'client', attributes: { 'crm.system': crm.name } }, async (span) => {
      const written = await crm.deliver(submission);
      span.setAttributes({ 'crm.record_id': written.crmRecordId });
      return written;
    });
  } catch (err) {
    if (err instanceof PermanentCrmError)
      throw new UnrecoverableError(`${crm.name} rejected the record: ${err.message}`);
    throw err;
  }
  await dropStagedCv(submission, cvDeps);
  return result;
}

/**
 * The field and the rule it broke (`data.email: invalid email`, `data.name: invalid max_length (expected
 * <=200)`), never the value: valibot's own message quotes the input (`Received "ada@…"`), and the reason
 * is kept in Redis as the job's failedReason, listed by `ops failed` and counted by alerts.
 */
function describeIssue(issue: v.BaseIssue<unknown>): string {
  const at = v.getDotPath(issue) ?? '(root)';
  return `${at}: invalid ${issue.type}${issue.expected ? ` (expected ${issue.expected})` : ''}`;
}
