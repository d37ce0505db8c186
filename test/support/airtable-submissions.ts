import { JOB_OPTIONS, type JobPayload, jobNameFor, SUBMISSION_KINDS, type SubmissionKind } from '@forms/schemas';
import { type AirtableMapping, isContactKind, toAirtableWrite } from '@forms/worker';
import type { Queue } from 'bullmq';
import type { FakeAirtable } from './airtable-server.ts';
import { sleep } from './wait.ts';

/** Valid data per kind for submission `i` with `email`. */
function dataFor(kind: SubmissionKind, i: number, email: string): Record<string, unknown> {
  switch (kind) {
    case 'contact':
      return { email, name: `Contact ${i}`, message: `hello ${i}` };
    case 'contact-update':
      return { email, name: `Contact ${i}`, pricingTier: 'micro', usingInfluencers: i % 2 === 0 };
    case 'usa-signup':
      return { email, name: `Brand ${i}`, already_working_with_influencers: true };
    case 'creator-signup':
      return { email, name: `Creator ${i}`, instagram: `@creator${i}` };
    case 'careers-apply':
      return { email, name: `Applicant ${i}`, role: 'Engineer', note: `note ${i}` };
    case 'partner-webinar':
      return { workEmail: email, fullName: `Guest ${i}` };
    default:
      return { email, phoneNumber: `+4420000${i}` };
  }
}

/**
 * `count` submissions cycling through every kind. Contact kinds draw their email from a pool of
 * `contactEmails` addresses, so several submissions land on one contact; the rest have their own.
 */
export function mixedSubmissions(
  count: number,
  { contactEmails = Math.max(1, Math.ceil(count / 20)), runId = Date.now().toString(36) } = {},
): JobPayload[] {
  const start = Date.parse('2026-01-01T00:00:00Z');
  return Array.from({ length: count }, (_, i) => {
    const kind = SUBMISSION_KINDS[i % SUBMISSION_KINDS.length]!;
    const contact = isContactKind(kind);
    const email = contact
      ? `person${i % contactEmails}@brand${i % contactEmails}.example`
      : `sub${i}@company${i}.example`;
    const submissionId = `sub_${runId}_${String(i).padStart(6, '0')}`;
    return {
      v: 1,
      submissionId,
      recordId: contact ? `con_${runId}_${i % contactEmails}` : submissionId,
      kind,
      acceptedAt: new Date(start + i).toISOString(),
      data: dataFor(kind, i, email),
    } as JobPayload;
  });
}

/** Adds the submissions as the gateway does (job id = submission id), in bulks. */
export async function enqueueSubmissions(
  queue: Queue,
  submissions: JobPayload[],
  jobOptions: Record<string, unknown> = {},
): Promise<void> {
  for (let i = 0; i < submissions.length; i += 500) {
    await queue.addBulk(
      submissions.slice(i, i + 500).map((s) => ({
        name: jobNameFor(s.kind),
        data: s,
        opts: { ...JOB_OPTIONS, ...jobOptions, jobId: s.submissionId },
      })),
    );
  }
}

export type DeliveryCheck = { expected: number; found: number; lost: string[]; duplicated: string[] };

/**
 * Compares what the fake holds with what the submissions should have made: one record per merge key
 * (email for contacts, submission id for the rest). `lost` and `duplicated` list the keys that break it.
 */
export function checkDelivery(
  server: FakeAirtable,
  baseId: string,
  submissions: JobPayload[],
  mapping: AirtableMapping,
): DeliveryCheck {
  const expected = new Map<string, { mergeOn: string; keys: Set<string> }>();
  for (const s of submissions) {
    const write = toAirtableWrite(s, mapping);
    const entry = expected.get(write.table) ?? { mergeOn: write.mergeOn, keys: new Set<string>() };
    entry.keys.add(write.mergeValue);
    expected.set(write.table, entry);
  }
  const result: DeliveryCheck = { expected: 0, found: 0, lost: [], duplicated: [] };
  for (const [table, { mergeOn, keys }] of expected) {
    const counts = new Map<string, number>();
    for (const row of server.records(baseId, table)) {
      const key = String(row.fields[mergeOn]);
      counts.set(key, (counts.get(key) ?? 0) + 1);
    }
    result.expected += keys.size;
    result.found += server.records(baseId, table).length;
    for (const key of keys) if (!counts.has(key)) result.lost.push(`${table}/${key}`);
    for (const [key, n] of counts) if (n > 1) result.duplicated.push(`${table}/${key}`);
  }
  return result;
}

/** Polls until every job has completed or failed, or `timeoutMs` passes. */
export async function waitForDrain(
  queue: Queue,
  total: number,
  timeoutMs: number,
): Promise<{ completed: number; failed: number }> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const counts = await queue.getJobCounts('completed', 'failed');
    const done = { completed: counts.completed ?? 0, failed: counts.failed ?? 0 };
    if (done.completed + done.failed >= total || Date.now() > deadline) return done;
    await sleep(100);
  }
}
