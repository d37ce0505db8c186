import { randomUUID } from 'node:crypto';
import { HONEYPOT_FIELD } from '@forms/schemas';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { runOps } from '../support/ops-cli.ts';
import { type Pipeline, startPipeline } from '../support/pipeline.ts';
import { validBody } from '../support/valid-bodies.ts';
import { eventually } from '../support/wait.ts';

// Issue 30.5: `ops spam release` of an id released before exited 1 (`released 0, missing 1`) while the guide
// says twice is harmless. An idempotent command exits 0 when the state asked for already holds; 1 is kept for
// an id that names nothing. Each command's --help says what its exit codes mean.
let pipeline: Pipeline;
beforeAll(async () => {
  pipeline = await startPipeline({ OPS_ACTOR: 'twice-test' });
});
afterAll(() => pipeline?.stop());

it('spam release, replay, purge and spam purge run twice exit 0; an id that names nothing exits 1', async () => {
  const res = await fetch(`${pipeline.gateway.url}/api/creator-signup`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ ...validBody('creator-signup', `twice-${randomUUID()}`), [HONEYPOT_FIELD]: 'x' }),
  });
  const { recordId: id } = (await res.json()) as { recordId: string };

  const first = await runOps(['spam', 'release', id, '--json'], pipeline.env);
  expect([first.code, first.json], first.stderr).toEqual([0, expect.objectContaining({ released: 1, missing: 0 })]);
  // Each ops run is a process of its own (a second or two here): those that do not depend on each other go together.
  const [again, unknown] = await Promise.all([
    runOps(['spam', 'release', id], pipeline.env),
    runOps(['spam', 'release', id, 'sub_nothing', '--json'], pipeline.env),
  ]);
  expect([again.code, again.stdout], again.stderr).toEqual([0, 'released 0, already released 1, missing 0\n']);
  expect(unknown.code).toBe(1);
  expect(unknown.json).toMatchObject({
    released: 0,
    alreadyReleased: 1,
    missing: 1,
    ids: { missing: ['sub_nothing'] },
  });

  // Delivered: a replay of it is a skip (not failed any more), the state asked for; purges find nothing left.
  await eventually(async () => (await (await pipeline.queue.getJob(id))?.getState()) === 'completed');
  const twice = async (args: string[]) => [await runOps(args, pipeline.env), await runOps(args, pipeline.env)];
  const [replayed, replayedNothing, purges, spamPurges] = await Promise.all([
    runOps(['replay', id, '--json'], pipeline.env),
    runOps(['replay', 'sub_nothing'], pipeline.env),
    twice(['purge', '--all', '--yes']),
    twice(['spam', 'purge', id, '--yes']),
  ]);
  expect([replayed.code, replayed.json], replayed.stderr).toEqual([
    0,
    expect.objectContaining({ replayed: 0, skipped: 1, missing: 0 }),
  ]);
  expect(replayedNothing.code).toBe(1);
  expect([...purges, ...spamPurges].map((r) => r.code)).toEqual([0, 0, 0, 0]);
}, 90_000);
