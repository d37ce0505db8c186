import { type ChildProcess, spawn } from 'node:child_process';
import { readdirSync, readFileSync } from 'node:fs';
import type { ImageConfig } from './inspect-image.ts';
import { runCommand } from './run-command.ts';

export type ImageProcess = {
  /** Everything the process printed so far (stdout and stderr). */
  output: () => string;
  /** Runs another command in the same container, as `docker exec` would: exit code and output. */
  exec: (command: string[]) => Promise<{ code: number | null; output: string }>;
  /** Sends `signal` to the image's process and waits for it to end: its exit code, or the signal that ended it. */
  stop: (signal: NodeJS.Signals, timeoutMs: number) => Promise<{ code: number | null; signal: string | null }>;
  /** Removes the working container. */
  remove: () => Promise<void>;
};

/**
 * Runs an image's own ENTRYPOINT + CMD the way a container engine would: as the image's USER, in its
 * WORKDIR, with its ENV plus `env` (what compose would set), on the host's network (the services it talks to
 * listen on loopback). `podman run` cannot start containers on this machine kind, so this is a buildah
 * working container with chroot isolation; the process runs under buildah, which this signals directly.
 */
export async function startInImage(
  image: string,
  config: ImageConfig,
  env: Record<string, string>,
): Promise<ImageProcess> {
  const container = (await runCommand('buildah', ['from', '--pull=never', image])).trim();
  const runArgs = (command: string[]) => [
    ...['run', '--isolation', 'chroot', '--network', 'host'],
    ...['--user', config.user || 'root', '--workingdir', config.workingDir || '/'],
    ...[...config.env, ...Object.entries(env).map(([k, v]) => `${k}=${v}`)].flatMap((entry) => ['--env', entry]),
    container,
    '--',
    ...command,
  ];
  const child = spawn('buildah', runArgs([...config.entrypoint, ...config.cmd]), { stdio: ['ignore', 'pipe', 'pipe'] });
  let output = '';
  child.stdout.on('data', (chunk: Buffer) => (output += chunk));
  child.stderr.on('data', (chunk: Buffer) => (output += chunk));
  const ended = new Promise<{ code: number | null; signal: string | null }>((resolve) =>
    child.once('exit', (code, signal) => resolve({ code, signal })),
  );
  return {
    output: () => output,
    exec: (command) =>
      new Promise((resolve) => {
        const run = spawn('buildah', runArgs(command), { stdio: ['ignore', 'pipe', 'pipe'] });
        let out = '';
        run.stdout.on('data', (chunk: Buffer) => (out += chunk));
        run.stderr.on('data', (chunk: Buffer) => (out += chunk));
        run.once('exit', (code) => resolve({ code, output: out }));
      }),
    async stop(signal, timeoutMs) {
      if (child.exitCode !== null || child.signalCode !== null) return ended;
      // The image's process is the one buildah runs (its descendant): signal it as an engine signals PID 1.
      for (const pid of descendants(child)) process.kill(pid, signal);
      const timer = setTimeout(() => child.kill('SIGKILL'), timeoutMs);
      const result = await ended;
      clearTimeout(timer);
      return result;
    },
    async remove() {
      if (child.exitCode === null && child.signalCode === null) child.kill('SIGKILL');
      await runCommand('buildah', ['rm', container]).catch(() => {});
    },
  };
}

/** The first processes below `child` that are not buildah's own (`buildah-chroot-runtime`, `…-exec`). */
function descendants(child: ChildProcess): number[] {
  const parents = new Map<number, number[]>();
  for (const entry of readdirSync('/proc')) {
    if (!/^\d+$/.test(entry)) continue;
    try {
      const stat = readFileSync(`/proc/${entry}/stat`, 'utf8');
      const ppid = Number(stat.slice(stat.lastIndexOf(')') + 2).split(' ')[1]);
      parents.set(ppid, [...(parents.get(ppid) ?? []), Number(entry)]);
    } catch {
      // gone meanwhile
    }
  }
  const found: number[] = [];
  const walk = (pid: number) => {
    for (const kid of parents.get(pid) ?? []) {
      const name = readFileSync(`/proc/${kid}/comm`, 'utf8').trim();
      if (/^(memfd:)?buildah/.test(name)) walk(kid);
      else found.push(kid);
    }
  };
  walk(child.pid!);
  return found;
}
