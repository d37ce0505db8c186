import { randomUUID } from 'node:crypto';
import { RETRY_POLICY } from '@forms/schemas';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { sendJson } from '../support/http.ts';
import { runOps } from '../support/ops-cli.ts';
import { type Pipeline, startPipeline } from '../support/pipeline.ts';
import { validBody } from '../support/valid-bodies.ts';
import { eventually } from '../support/wait.ts';

// Issue 30.8: after a replay `ops show` said `delivered  attempts 1` above the fourteen failed attempts it
// listed: a replay starts the attempts from zero, and nothing kept the runs before. It now names both.
let pipeline: Pipeline;
beforeAll(async () => {
  pipeline = await startPipeline({ RETRY_BASE_DELAY_MS: '5', RETRY_MAX_DELAY_MS: '20' });
});
afterAll(() => pipeline?.stop());

it('a job that failed 14 attempts, replayed and delivered: 1 this run, 15 in all over 2 runs', async () => {
  // The store refuses every new submission row until the constraint goes (NOT VALID: existing rows stand).
  await pipeline.db.exec('ALTER TABLE submissions ADD CONSTRAINT attempts_test_refuse CHECK (false) NOT VALID');
  const answer = await sendJson(
    `${pipeline.gateway.url}/api/creator-signup`,
    validBody('creator-signup', randomUUID()),
  );
  const id: string = answer.body.recordId;
  await eventually(async () => (await (await pipeline.queue.getJob(id))?.getState()) === 'failed', {
    timeoutMs: 20_000,
  });
  await pipeline.db.exec('ALTER TABLE submissions DROP CONSTRAINT attempts_test_refuse');
  const replay = await runOps(['replay', id], pipeline.env);
  expect(replay.code, replay.stderr).toBe(0);
  await eventually(async () => (await (await pipeline.queue.getJob(id))?.getState()) === 'completed');

  const [text, json] = await Promise.all([
    runOps(['show', id], pipeline.env),
    runOps(['show', id, '--json'], pipeline.env),
  ]);
  const failed = RETRY_POLICY.attempts;
  expect(text.stdout.split('\n')[0]).toBe(
    `${id}  creator-signup  delivered  attempts 1 this run, ${failed + 1} in all over 2 runs (replayed 1x)`,
  );
  expect(json.json.submissions[0]).toMatchObject({ attempts: 1, attemptsInAll: failed + 1, runs: 2 });
  const logged: string[] = json.json.submissions[0].errors;
  expect(logged.filter((line) => / attempt \d+: /.test(line))).toHaveLength(failed);
  expect(logged.at(-1)).toMatch(new RegExp(`replayed by ops after ${failed} attempts: run 2 starts$`));
}, 60_000);
