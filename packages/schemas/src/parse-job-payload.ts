import * as v from 'valibot';
import { JOBS, type JobName, type JobPayload } from './jobs.ts';

/**
 * A job payload read back from Redis outside BullMQ's own path (the spam quarantine), checked against the
 * job catalog instead of cast: the payload, or what is wrong with it as a path and what was expected
 * (`data.email: invalid string (expected string)`), never the value, which may be personal.
 */
export function parseJobPayload(raw: string): { payload: JobPayload } | { problem: string } {
  let value: unknown;
  try {
    value = JSON.parse(raw);
  } catch {
    return { problem: 'not JSON' };
  }
  const kind = (value as { kind?: unknown } | null)?.kind;
  const schema = typeof kind === 'string' ? JOBS[`${kind}.v1` as JobName] : undefined;
  if (!schema) return { problem: 'kind: not a kind of the job catalog' };
  const parsed = v.safeParse(schema as v.GenericSchema<unknown, JobPayload>, value);
  if (parsed.success) return { payload: parsed.output };
  const issue = parsed.issues[0];
  return {
    problem: `${v.getDotPath(issue) ?? '(root)'}: invalid ${issue.type}${issue.expected ? ` (expected ${issue.expected})` : ''}`,
  };
}
