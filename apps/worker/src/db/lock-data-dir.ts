import { readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { hostname } from 'node:os';
import { relative } from 'node:path';

/** PGlite is one process per directory: a second opener is refused with this (it names the holder). */
class DataDirLocked extends Error {}

type Holder = { pid: number; host: string; command: string; since: string };

/**
 * Takes the PGlite directory for this process, or throws `DataDirLocked` at once when a live process holds
 * it. A second opener of the same files (a second `pnpm start`, `ops erase` beside it) is how an embedded
 * database gets corrupted.
 *
 * The lock is `<dir>.lock` beside it (PGlite's initdb wants its directory to itself), created exclusively (O_EXCL, atomic), holding the holder's pid, host,
 * script and start time. It dies with its holder: a lock whose pid no longer runs on this host is stale
 * and taken over (a crash or SIGKILL leaves one). Why not an OS lock: Node has no flock/fcntl, and a
 * native module for one is a dependency with a build step; a pid that is reused by an unrelated process
 * refuses wrongly (safe, and the message says which file to remove), it never lets two openers in. The
 * command line's arguments are not recorded (an `ops erase` argument is an address). Returns the release.
 */
export function lockDataDir(dir: string, what = 'The PGlite directory'): () => void {
  const file = `${dir}.lock`;
  const mine: Holder = {
    pid: process.pid,
    host: hostname(),
    command: relative(process.cwd(), process.argv[1] ?? '') || 'node',
    since: new Date().toISOString(),
  };
  for (let attempt = 0; ; attempt++) {
    try {
      writeFileSync(file, `${JSON.stringify(mine)}\n`, { flag: 'wx' });
      return () => {
        if (readHolder(file)?.pid === process.pid) rmSync(file, { force: true });
      };
    } catch (err) {
      if ((err as NodeJS.ErrnoException).code !== 'EEXIST') throw err;
    }
    const holder = readHolder(file);
    // Unreadable and fresh: another opener is writing it this instant.
    const live = holder ? holder.host !== mine.host || isRunning(holder.pid) : Date.now() - mtimeMs(file) < 5_000;
    if (live || attempt > 0) {
      const who = holder
        ? `process ${holder.pid} on ${holder.host} (${holder.command}, since ${holder.since})`
        : 'another process';
      throw new DataDirLocked(
        `${what} ${dir} is open in ${who}; one process at a time may open it (PGlite allows no more). ` +
          'Stop that process first, or do the work through it: `ops erase` asks a running worker itself, and with ' +
          'METRICS_PORT and ADMIN_TOKEN set it serves POST /admin/erase (docs/privacy.md#erasing-a-person). ' +
          `If no such process runs, remove ${file}.`,
      );
    }
    // Stale (its process is gone, as after a crash or a SIGKILL): taken over, once.
    rmSync(file, { force: true });
  }
}

function mtimeMs(file: string): number {
  try {
    return statSync(file).mtimeMs;
  } catch {
    return 0;
  }
}

function readHolder(file: string): Holder | undefined {
  try {
    return JSON.parse(readFileSync(file, 'utf8')) as Holder;
  } catch {
    return undefined;
  }
}

/** Signal 0 checks only that the pid exists; EPERM means it does, under another user. */
function isRunning(pid: number): boolean {
  if (pid === process.pid) return true;
  try {
    process.kill(pid, 0);
    return true;
  } catch (err) {
    return (err as NodeJS.ErrnoException).code === 'EPERM';
  }
}
