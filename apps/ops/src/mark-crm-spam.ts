import { createLogger } from '@forms/observability';
import { type JobPayload, submissionEmail } from '@forms/schemas';
import { openCrm } from '@forms/worker';
import type { CliContext } from './cli-context.ts';

/** What `ops spam mark` did to the CRM: the records marked, the submissions it holds no record of, or why not. */
export type CrmSpamMarks = { marked: string[]; noRecord: string[] } | { unreachable: string };

/**
 * Marks the CRM records of delivered submissions as spam (the CRM drivers' `markSpam`: a field, nothing
 * deleted), through the CRM the workers write to, opened with their configuration from the same environment,
 * as `ops erase` does. A CRM out of reach (an embedded PGlite a running `pnpm start` holds, a Postgres or an
 * Airtable that does not answer) is reported, not thrown: the filter was taught all the same.
 */
export async function markCrmSpam(ctx: CliContext, delivered: readonly JobPayload[]): Promise<CrmSpamMarks> {
  if (delivered.length === 0) return { marked: [], noRecord: [] };
  try {
    const crm = await openCrm(ctx.config().worker(), createLogger({ level: 'silent' }));
    try {
      const marked = await crm.markSpam(
        delivered.map((p) => ({ submissionId: p.submissionId, kind: p.kind, email: submissionEmail(p) })),
      );
      return { marked, noRecord: delivered.map((p) => p.submissionId).filter((id) => !marked.includes(id)) };
    } finally {
      await crm.close();
    }
  } catch (err) {
    return { unreachable: (err as Error).message };
  }
}
