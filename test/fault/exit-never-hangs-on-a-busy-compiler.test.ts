import { join } from 'node:path';
import { expect, it } from 'vitest';
import { redisServersIn, spawnStart } from '../support/spawn-start.ts';
import { sleep } from '../support/wait.ts';

// A CI run's `a Ctrl-C while it starts` waited 120 s for `pnpm start` to exit: its stop had run and said so,
// and the process hung in process.exit(), its main thread joining V8's compiler threads while one of them
// waited for the main thread to collect garbage (nodejs/node#54918, open on Node 24; gdb showed both sides).
// A start interrupted while it still loads and compiles is where compiles are in flight; on one core
// (`taskset`), the compiler threads wait their turn, and before the fix 4 of 30 such starts hung (this test failed on that code). Every
// process now leaves through `exitProcess` (@forms/runtime), which lets the compilers settle first.

const ROUNDS = Number(process.env.EXIT_HANG_ROUNDS ?? 30);
// Its stop takes well under a second here; a hang is for ever.
const EXIT_WITHIN_MS = 15_000;

it(
  `${ROUNDS} Ctrl-Cs while pnpm start starts, on one core: each exits 0`,
  async () => {
    const hung: string[] = [];
    for (let round = 0; round < ROUNDS; round++) {
      const start = await spawnStart(
        { REDIS_URL: undefined, REDIS_CLUSTER_NODES: undefined },
        { readyOn: 'redis', oneCore: true },
      );
      start.signal('SIGINT');
      const exit = await Promise.race([start.exited, sleep(EXIT_WITHIN_MS).then(() => 'hung' as const)]);
      if (exit === 'hung') {
        hung.push(`round ${round}: no exit ${EXIT_WITHIN_MS} ms after its stop began\n${start.output()}`);
        start.signal('SIGKILL');
        for (const pid of redisServersIn(join(start.dataDir, 'redis'))) process.kill(pid, 'SIGKILL');
      } else {
        expect(exit, start.output()).toEqual({ code: 0, signal: null });
      }
      await start.stop();
    }
    expect(hung, hung.join('\n\n')).toEqual([]);
  },
  60_000 + ROUNDS * (EXIT_WITHIN_MS + 5_000),
);
