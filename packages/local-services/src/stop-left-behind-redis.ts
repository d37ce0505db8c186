import { readFileSync, realpathSync } from 'node:fs';
import { join } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { Redis } from 'ioredis';
import { REDIS_PORT_FILE } from './redis-server.ts';

export type LeftBehindRedis = { url: string; pid: number };

/**
 * Shuts down a redis-server still running on `dir`'s files, which an earlier start there left behind (it was
 * killed before it could stop its Redis), and resolves with what it stopped, or undefined when none runs.
 * Call it only while holding `dir` (the data folder's lock): a Redis on it is then no live process's.
 *
 * Found by asking Redis, never by a pid alone (a pid is reused; a port is taken by someone else): the ports to
 * try are the one kept in `dir` (REDIS_PORT_FILE, written before each start) and `alsoTry` (the REDIS_URL an
 * older start kept elsewhere); a Redis answering on one is ours only when its `dir` is this folder. It gets
 * SHUTDOWN, as SIGTERM would (the append-only file flushed, a snapshot saved as its config says), and this
 * waits until its process is gone, so the Redis started next is alone on the files.
 */
export async function stopLeftBehindRedis(
  dir: string,
  { alsoTry = [], timeoutMs = 30_000 }: { alsoTry?: string[]; timeoutMs?: number } = {},
): Promise<LeftBehindRedis | undefined> {
  const folder = realFolder(dir);
  if (!folder) return undefined;
  const kept = keptPort(dir);
  const urls = [...new Set([...(kept ? [`redis://127.0.0.1:${kept}`] : []), ...alsoTry])];
  for (const url of urls) {
    const pid = await pidOfRedisOn(url, folder);
    if (pid === undefined) continue;
    await shutdown(url);
    const deadline = Date.now() + timeoutMs;
    while (isRunning(pid)) {
      if (Date.now() > deadline)
        throw new Error(`the redis-server (pid ${pid}) left running on ${dir} did not stop within ${timeoutMs} ms`);
      await sleep(50);
    }
    return { url, pid };
  }
  return undefined;
}

function realFolder(dir: string): string | undefined {
  try {
    return realpathSync(dir);
  } catch {
    return undefined; // no folder, no Redis on it
  }
}

function keptPort(dir: string): number | undefined {
  try {
    const port = Number(readFileSync(join(dir, REDIS_PORT_FILE), 'utf8').trim());
    return Number.isInteger(port) && port > 0 && port < 65536 ? port : undefined;
  } catch {
    return undefined;
  }
}

/** The pid of the Redis answering at `url` when its working folder is `folder`; else undefined. */
async function pidOfRedisOn(url: string, folder: string): Promise<number | undefined> {
  const redis = client(url);
  try {
    await redis.connect();
    const [, workingDir] = (await redis.config('GET', 'dir')) as [string, string];
    if (workingDir !== folder) return undefined;
    return Number(/^process_id:(\d+)/m.exec(await redis.info('server'))?.[1]);
  } catch {
    return undefined; // nothing answers there, or not a Redis
  } finally {
    redis.disconnect();
  }
}

async function shutdown(url: string): Promise<void> {
  const redis = client(url);
  try {
    await redis.connect();
    await redis.shutdown();
  } catch {
    // The connection closes as Redis exits: the usual answer to SHUTDOWN.
  } finally {
    redis.disconnect();
  }
}

function client(url: string): Redis {
  const redis = new Redis(url, {
    lazyConnect: true,
    enableOfflineQueue: false,
    connectTimeout: 1_000,
    maxRetriesPerRequest: 0,
    retryStrategy: () => null,
  });
  redis.on('error', () => {});
  return redis;
}

/** Signal 0 checks only that the pid exists; EPERM means it does, under another user. */
function isRunning(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (err) {
    return (err as NodeJS.ErrnoException).code === 'EPERM';
  }
}
