import { type ChildProcess, spawn, spawnSync } from 'node:child_process';
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { Redis } from 'ioredis';
import { freePort } from './free-port.ts';

export type LocalRedis = { url: string; port: number; process: ChildProcess; stop: () => Promise<void> };

/** Where a Redis started with `dir` keeps its port, for the next start to find it (`stopLeftBehindRedis`). */
export const REDIS_PORT_FILE = 'redis-server.port';

/**
 * The redis-servers this process started and that still run. Each is its own process group (below), so
 * nothing stops it when this process dies, unless we do: on any exit that runs JavaScript (process.exit from
 * anywhere, an uncaught exception, the end of the event loop) each gets SIGTERM, on which Redis writes out
 * its data and exits. Only a SIGKILL of this process leaves one running, for `stopLeftBehindRedis`.
 */
const running = new Set<ChildProcess>();
process.on('exit', () => {
  for (const child of running) child.kill('SIGTERM');
});

/** True when a `redis-server` binary is on PATH. */
export function hasRedisServerBinary(): boolean {
  return spawnSync('redis-server', ['--version'], { stdio: 'ignore' }).status === 0;
}

/** True when a Redis answers PING at `url` within `timeoutMs`. */
export async function redisAnswers(url: string, timeoutMs = 500): Promise<boolean> {
  const client = new Redis(url, {
    lazyConnect: true,
    enableOfflineQueue: false,
    connectTimeout: timeoutMs,
    maxRetriesPerRequest: 0,
    retryStrategy: () => null,
  });
  client.on('error', () => {});
  try {
    await client.connect();
    return (await client.ping()) === 'PONG';
  } catch {
    return false;
  } finally {
    client.disconnect();
  }
}

/**
 * Starts `redis-server` as a child process on 127.0.0.1. With `configFile` (infra/redis/redis.conf for
 * `pnpm start`), that file's settings hold and only port, bind and `dir` are set here. Without it: with
 * `dir`, data persists there (append-only file); without, nothing is written to disk. Always `noeviction`,
 * because BullMQ loses jobs if Redis evicts keys, unless a test overrides it in `args`.
 */
export async function startRedisServer({
  port,
  dir,
  configFile,
  args: extra = [],
}: {
  port?: number;
  dir?: string;
  configFile?: string;
  /** More redis-server arguments, added last so they win, such as `['--replicaof', '127.0.0.1', '6379']`. */
  args?: string[];
} = {}): Promise<LocalRedis> {
  const chosen = port ?? (await freePort());
  const args = [
    ...(configFile ? [configFile] : []),
    '--port',
    String(chosen),
    '--bind',
    '127.0.0.1',
    '--maxmemory-policy',
    'noeviction',
  ];
  if (dir) {
    mkdirSync(dir, { recursive: true });
    // Before it is spawned, so no moment has it running and unrecorded.
    writeFileSync(join(dir, REDIS_PORT_FILE), `${chosen}\n`);
  }
  if (configFile) {
    if (dir) args.push('--dir', dir);
  } else if (dir) {
    args.push('--save', '', '--dir', dir, '--appendonly', 'yes');
  } else {
    args.push('--save', '', '--appendonly', 'no');
  }
  // Its own process group: a Ctrl-C in the terminal of `pnpm start` reaches the launcher, which stops this
  // Redis last, after the worker's active jobs drained through it, not at the same moment.
  const child = spawn('redis-server', [...args, ...extra], { stdio: 'ignore', detached: true });
  running.add(child);
  child.once('exit', () => running.delete(child));
  const url = `redis://127.0.0.1:${chosen}`;
  const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
  const failed = new Promise<never>((_, reject) => child.once('error', reject));
  const deadline = Date.now() + 10_000;
  // A fresh client per try: a client that failed its first connect can keep stale state.
  while (!(await Promise.race([redisAnswers(url, 200), failed]))) {
    if (Date.now() > deadline || child.exitCode !== null) {
      child.kill('SIGKILL');
      throw new Error(`redis-server did not answer on port ${chosen}`);
    }
    await sleep(50);
  }
  return {
    url,
    port: chosen,
    process: child,
    async stop() {
      if (child.exitCode === null && child.signalCode === null) {
        child.kill('SIGTERM');
        await exited;
      }
    },
  };
}
