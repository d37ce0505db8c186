import { InvalidArgumentError } from 'commander';

const UNIT_MS = { s: 1_000, m: 60_000, h: 3_600_000, d: 86_400_000 } as const;

/** ISO 8601 as an operator types it: a date, optionally a time (T or a space), seconds, fraction, offset. */
const ISO_TIME =
  /^(\d{4})-(\d{2})-(\d{2})(?:[T ]([01]\d|2[0-3]):([0-5]\d)(?::([0-5]\d)(?:\.\d{1,3})?)?(Z|[+-](?:[01]\d|2[0-3]):?[0-5]\d)?)?$/;

/**
 * `--since` / `--until`: an ISO date or time (`2026-11-23`, `2026-11-23T09:30Z`), or a duration meaning
 * that long ago (`90s`, `15m`, `2h`, `3d`). Returns epoch ms; a bad value is a usage error (exit 2).
 * Strict: the whole text must be one of those, and the date a real one. Date.parse reads what it can of
 * anything ("2026-11-25 junk" was June 11), so it is only given text this has checked.
 */
export function parseTime(text: string, now = Date.now()): number {
  const trimmed = text.trim();
  const duration = /^(\d+(?:\.\d+)?)\s*([smhd])$/.exec(trimmed);
  if (duration) return now - Number(duration[1]) * UNIT_MS[duration[2] as keyof typeof UNIT_MS];
  const iso = ISO_TIME.exec(trimmed);
  if (iso) {
    const [, year, month, day] = iso.map(Number) as [number, number, number, number];
    const date = new Date(Date.UTC(year, month - 1, day));
    const real = date.getUTCFullYear() === year && date.getUTCMonth() === month - 1 && date.getUTCDate() === day;
    const at = Date.parse(trimmed.replace(' ', 'T'));
    if (real && !Number.isNaN(at)) return at;
  }
  throw new InvalidArgumentError(`"${text}" is neither a time (2026-11-23T09:30Z) nor a duration (90s, 15m, 2h, 3d)`);
}
