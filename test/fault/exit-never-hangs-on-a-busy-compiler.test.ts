import { availableParallelism } from 'node:os';
import { join } from 'node:path';
import { expect, it } from 'vitest';
import { redisServersIn, spawnStart } from '../support/spawn-start.ts';
import { sleep } from '../support/wait.ts';

// A CI run's `a Ctrl-C while it starts` waited 120 s for `pnpm start` to exit: its stop had run and said so,
// and the process hung in process.exit(), its main thread joining V8's compiler threads while one of them
// waited for the main thread to collect garbage (nodejs/node#54918, open on Node 24; gdb showed both sides).
// A start interrupted while it still loads and compiles is where compiles are in flight; pinned to one core
// (`taskset`), its compiler threads wait their turn, and before the fix 4 of 30 such starts hung (this test
// failed on that code). Every process now leaves through `exitProcess` (@forms/runtime), which lets the
// compilers settle first.

const ROUNDS = Number(process.env.EXIT_HANG_ROUNDS ?? 24);
// Its stop takes well under a second here; a hang is for ever.
const EXIT_WITHIN_MS = 15_000;
// Two at a time, each pinned to a core of its own.
const CORES = Math.min(2, availableParallelism());

/** One start on `core`, interrupted as soon as its Redis is up: what kept it from exiting 0, if anything. */
async function interruptedStart(core: number): Promise<string | undefined> {
  const start = await spawnStart({ REDIS_URL: undefined, REDIS_CLUSTER_NODES: undefined }, { readyOn: 'redis', core });
  start.signal('SIGINT');
  const exit = await Promise.race([start.exited, sleep(EXIT_WITHIN_MS).then(() => 'hung' as const)]);
  let problem: string | undefined;
  if (exit === 'hung') {
    problem = `no exit ${EXIT_WITHIN_MS} ms after its stop began`;
    start.signal('SIGKILL');
    for (const pid of redisServersIn(join(start.dataDir, 'redis'))) process.kill(pid, 'SIGKILL');
  } else if (exit.code !== 0) {
    problem = `exited ${JSON.stringify(exit)}`;
  }
  const output = start.output();
  await start.stop();
  return problem && `${problem}\n${output}`;
}

it(
  `${ROUNDS} Ctrl-Cs while pnpm start starts, each start on one core: each exits 0`,
  async () => {
    const problems: string[] = [];
    for (let round = 0; round < ROUNDS; round += CORES) {
      const seen = await Promise.all(Array.from({ length: CORES }, (_, core) => interruptedStart(core)));
      problems.push(...seen.filter((p) => p !== undefined).map((p) => `round ${round}: ${p}`));
    }
    expect(problems, problems.join('\n\n')).toEqual([]);
  },
  60_000 + (ROUNDS / CORES) * (EXIT_WITHIN_MS + 10_000),
);
