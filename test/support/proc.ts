import { readdirSync, readFileSync } from 'node:fs';

/**
 * A process's /proc stat fields after its name (state is [0], parent pid [1], user and system CPU ticks
 * [11] and [12]), or undefined once it is gone.
 */
export function procStat(pid: number): string[] | undefined {
  try {
    return readFileSync(`/proc/${pid}/stat`, 'utf8').split(') ')[1]!.split(' ');
  } catch {
    return undefined;
  }
}

/** The pids whose parent is `pid`, from /proc. */
export function childPids(pid: number): number[] {
  return readdirSync('/proc')
    .filter((name) => /^\d+$/.test(name))
    .map(Number)
    .filter((child) => procStat(child)?.[1] === String(pid));
}

/**
 * A process's read-like and write-like system calls so far (`syscr`, `syscw` in /proc/<pid>/io: read, readv,
 * recv…, write, writev, send…), or zeros once it is gone.
 */
export function procIo(pid: number): { reads: number; writes: number } {
  try {
    const text = readFileSync(`/proc/${pid}/io`, 'utf8');
    const field = (name: string) => Number(new RegExp(`^${name}: (\\d+)$`, 'm').exec(text)?.[1] ?? 0);
    return { reads: field('syscr'), writes: field('syscw') };
  } catch {
    return { reads: 0, writes: 0 };
  }
}
