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
