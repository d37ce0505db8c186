import { InvalidArgumentError } from 'commander';

const UNIT_MS = { s: 1_000, m: 60_000, h: 3_600_000, d: 86_400_000 } as const;

/**
 * `--since` / `--until`: an ISO date or time (`2026-11-23`, `2026-11-23T09:30Z`), or a duration meaning
 * that long ago (`90s`, `15m`, `2h`, `3d`). Returns epoch ms; a bad value is a usage error (exit 2).
 */
export function parseTime(text: string, now = Date.now()): number {
  const duration = /^(\d+(?:\.\d+)?)\s*([smhd])$/.exec(text.trim());
  if (duration) return now - Number(duration[1]) * UNIT_MS[duration[2] as keyof typeof UNIT_MS];
  if (/^\d{4}-\d{2}-\d{2}/.test(text)) {
    const at = Date.parse(text);
    if (!Number.isNaN(at)) return at;
  }
  throw new InvalidArgumentError(`"${text}" is neither a time (2026-11-23T09:30Z) nor a duration (90s, 15m, 2h, 3d)`);
}
