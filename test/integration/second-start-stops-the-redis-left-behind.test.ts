import { mkdtempSync, realpathSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Redis } from 'ioredis';
import { afterEach, expect, it } from 'vitest';
import { redisServersIn, seedPglite, spawnStart } from '../support/spawn-start.ts';

// Issue 49.1: a `pnpm start` that died without running its stop (killed, or, before the fix, any failure at
// start) left its redis-server running on DATA_DIR/redis, and the next start ran a second redis-server on the
// same folder beside it: two processes appending to one append-only file. A start now finds the Redis an
// earlier one left there (its port, kept in DATA_DIR/redis, or the REDIS_URL of local.json; the Redis
// answering there must report DATA_DIR/redis as its `dir`), shuts it down (its data written out), and starts
// its own.

const NO_REDIS_CONFIGURED = { REDIS_URL: undefined, REDIS_CLUSTER_NODES: undefined };
let dataDir: string;

afterEach(() => {
  for (const pid of redisServersIn(join(dataDir, 'redis'))) process.kill(pid, 'SIGKILL');
  rmSync(dataDir, { recursive: true, force: true });
});

/** The URL of the Redis a start says it started. */
function redisUrlOf(output: string): string {
  return /"url":"(redis:\/\/[^"]+)"[^\n]*started a local redis-server/.exec(output)![1]!;
}

async function withRedis<T>(url: string, work: (redis: Redis) => Promise<T>): Promise<T> {
  const redis = new Redis(url, { maxRetriesPerRequest: 1 });
  try {
    return await work(redis);
  } finally {
    redis.disconnect();
  }
}

for (const how of ['by the port it keeps', 'by the REDIS_URL of local.json (a Redis of an older start)'] as const) {
  it(`a start after a killed one stops the Redis left behind, found ${how}, and keeps its data`, async () => {
    dataDir = realpathSync(mkdtempSync(join(tmpdir(), 'left-behind-')));
    await seedPglite(dataDir);
    const redisDir = join(dataDir, 'redis');
    const env = { ...NO_REDIS_CONFIGURED, DATA_DIR: dataDir };
    const first = await spawnStart(env);
    await withRedis(redisUrlOf(first.output()), (redis) => redis.set('left-behind-probe', 'kept'));
    // Killed outright (an OOM kill, a closed laptop lid's kill -9): no handler of the launcher runs.
    first.child.kill('SIGKILL');
    await first.exited;
    const [leftBehind] = redisServersIn(redisDir);
    expect(leftBehind, 'the Redis the killed start left behind').toBeDefined();
    if (how !== 'by the port it keeps') rmSync(join(redisDir, 'redis-server.port'), { force: true });

    const second = await spawnStart(env);
    try {
      expect(second.output()).toMatch(new RegExp(`stopped the redis-server .*pid ${leftBehind}\\b`));
      const now = redisServersIn(redisDir);
      expect(now).toHaveLength(1);
      expect(now).not.toContain(leftBehind);
      expect(await withRedis(redisUrlOf(second.output()), (redis) => redis.get('left-behind-probe'))).toBe('kept');
    } finally {
      second.signal('SIGTERM');
      await second.exited;
    }
    expect(redisServersIn(redisDir)).toEqual([]);
  }, 180_000);
}
