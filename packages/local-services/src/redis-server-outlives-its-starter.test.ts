import { spawn } from 'node:child_process';
import { once } from 'node:events';
import { setTimeout as sleep } from 'node:timers/promises';
import { expect, it } from 'vitest';
import { redisAnswers } from './redis-server.ts';

// Issue 49.1: startRedisServer runs redis-server in a process group of its own (so a terminal's Ctrl-C
// reaches `pnpm start` first, which stops its Redis last). Nothing then stopped it when the process that
// started it died any other way: `pnpm start` with its port taken left its Redis running, parent PID 1. Now
// any exit that runs JavaScript sends it SIGTERM.
const MODULE = new URL('./redis-server.ts', import.meta.url).href;

const endings = {
  'an uncaught exception': "throw new Error('crash at start')",
  'process.exit(1)': 'process.exit(1)',
  'the event loop running dry': 'r.process.unref()',
};

for (const [how, ending] of Object.entries(endings)) {
  it(`a redis-server started here stops when its starter exits by ${how}`, async () => {
    const child = spawn(
      process.execPath,
      [
        '--input-type=module',
        '-e',
        `import { startRedisServer } from '${MODULE}';
         const r = await startRedisServer();
         console.log('port', r.port);
         ${ending};`,
      ],
      { stdio: ['ignore', 'pipe', 'pipe'] },
    );
    let out = '';
    child.stdout.on('data', (d) => (out += d));
    child.stderr.on('data', (d) => (out += d));
    await once(child, 'exit');
    const port = /port (\d+)/.exec(out)?.[1];
    expect(port, out).toBeDefined();
    const url = `redis://127.0.0.1:${port}`;
    for (let i = 0; i < 100 && (await redisAnswers(url, 200)); i++) await sleep(50);
    const stillAnswers = await redisAnswers(url, 200);
    if (stillAnswers) {
      // Left running (the defect): stopped here, so the test leaves nothing behind.
      const { Redis } = await import('ioredis');
      const redis = new Redis(url, { retryStrategy: () => null });
      await redis.shutdown('NOSAVE').catch(() => {});
      redis.disconnect();
    }
    expect(stillAnswers).toBe(false);
  }, 30_000);
}
