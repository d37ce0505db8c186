import { UnrecoverableError, type Job } from 'bullmq';
import * as v from 'valibot';
import { JOBS, type JobName } from '@forms/schemas';
import { PermanentCrmError, type Crm, type DeliveryResult } from '../crm/crm.ts';

/**
 * Re-parses the job against its catalog schema, then writes it to the CRM. A payload that fails its
 * schema, an unknown job name or a CRM rejection fails at once (no retry can fix them); anything else is
 * thrown as is and retried on the backoff schedule.
 */
export async function deliverSubmission(job: Job, crm: Crm): Promise<DeliveryResult> {
  const schema = JOBS[job.name as JobName];
  if (!schema) throw new UnrecoverableError(`Unknown job name "${job.name}"`);
  const parsed = v.safeParse(schema, job.data);
  if (!parsed.success) {
    const issue = parsed.issues[0];
    const at = issue.path?.map((p) => String(p.key)).join('.') ?? '(root)';
    throw new UnrecoverableError(`Payload does not match ${job.name}: ${at}: ${issue.message}`);
  }
  try {
    return await crm.deliver(parsed.output);
  } catch (err) {
    if (err instanceof PermanentCrmError) throw new UnrecoverableError(`${crm.name} rejected the record: ${err.message}`);
    throw err;
  }
}
