import { type OpsAction, type RecordedOpsAction, recordOpsAction } from '@forms/runtime';
import { AUDIT_MAX_ENTRIES } from '@forms/schemas';
import { Command, InvalidArgumentError, Option } from 'commander';
import type { OpsConfig } from './config.ts';
import type { JobFilter } from './job-filter.ts';
import { type OpenQueue, openQueue } from './open-queue.ts';
import { parseTime } from './parse-time.ts';

/** What every command gets: configuration read once, the streams, and whether a person is watching. */
export type CliContext = {
  config: () => OpsConfig;
  stdout: NodeJS.WritableStream;
  stderr: NodeJS.WritableStream & { isTTY?: boolean };
  stdin: NodeJS.ReadableStream & { isTTY?: boolean };
  now: () => number;
};

export type FilterOptions = { kind?: string; error?: string; code?: string; since?: number; until?: number };

/** The filter flags `failed`, `replay` and `purge` share. */
export function withFilterOptions(command: Command, now: () => number): Command {
  const time = (value: string) => parseTime(value, now());
  return command
    .option('--kind <kind>', 'only this kind of submission (contact, careers-apply, …)')
    .option('--error <text>', 'only failures whose last error contains this text (any case)')
    .option('--code <code>', 'only this CRM error code or HTTP status (INVALID_VALUE_FOR_COLUMN, 422, 503)')
    .option(
      '--since <time>',
      'only jobs that failed at or after this time or this long ago (2026-11-23T09:00Z, 2h)',
      time,
    )
    .option('--until <time>', 'only jobs that failed at or before this time or this long ago', time);
}

export function toFilter(options: FilterOptions): JobFilter {
  return { kind: options.kind, error: options.error, code: options.code, since: options.since, until: options.until };
}

export function hasFilter(options: FilterOptions): boolean {
  return Object.values(toFilter(options)).some((value) => value !== undefined);
}

export const jsonOption = () => new Option('--json', 'print one JSON document on stdout instead of text');

export function positiveInt(value: string): number {
  if (!/^\d+$/.test(value) || Number(value) < 1) throw new InvalidArgumentError('must be a whole number above 0');
  return Number(value);
}

/** Opens the queue for one command and always closes it, so the process can exit. */
export async function withQueue<T>(ctx: CliContext, work: (open: OpenQueue) => Promise<T>): Promise<T> {
  const open = await openQueue(ctx.config());
  try {
    return await work(open);
  } finally {
    await open.close();
  }
}

/**
 * Records an action in the audit trail (its `started` entry) before it changes anything; the action then
 * calls `complete` with what it did. `actor` comes from the configuration (OPS_ACTOR or the OS user).
 */
export function auditAction(
  ctx: CliContext,
  { redis }: OpenQueue,
  action: Omit<OpsAction, 'actor'>,
): Promise<RecordedOpsAction> {
  const { actor, keys } = ctx.config();
  return recordOpsAction(redis, keys.audit, { actor, ...action }, { maxEntries: AUDIT_MAX_ENTRIES });
}

/**
 * What each exit code of `command` means, at the end of its `--help` (docs/operations.md#the-ops-cli says the
 * rule). An idempotent command exits 0 when the state asked for already holds (released, replayed, purged,
 * erased before); 1 is kept for what the operator must look at: nothing found for an id, a job that could not
 * be changed, an unreachable Redis.
 */
export function withExitCodes(command: Command, codes: { ok: string; failed: string; usage?: string }): Command {
  const usage = codes.usage ? `; ${codes.usage}` : '';
  return command.addHelpText(
    'after',
    `\nExit codes:\n  0  ${codes.ok}\n  1  ${codes.failed}\n  2  bad usage (unknown flag, bad value, bad configuration${usage})\n`,
  );
}

export function print(ctx: CliContext, text: string) {
  ctx.stdout.write(`${text}\n`);
}

export function printJson(ctx: CliContext, value: unknown) {
  ctx.stdout.write(`${JSON.stringify(value, null, 2)}\n`);
}

/** Usage errors found after parsing (exit 2), e.g. a command given nothing to act on. */
export class UsageError extends Error {
  override name = 'UsageError';
}

export { Command };
