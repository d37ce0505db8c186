import { afterAll, beforeAll, expect, it } from 'vitest';
import { runOps } from '../support/ops-cli.ts';
import { type Pipeline, startPipeline } from '../support/pipeline.ts';
import { eventually } from '../support/wait.ts';

// Bull Board's buttons change jobs outside `pnpm ops` (no audit entry, no replay priority): read-only by
// default, writable with BULL_BOARD_WRITES=true, and then every write is in the ops audit trail.
const TOKEN = 'admin-token-for-tests-0123456789';
const auth = { authorization: `Bearer ${TOKEN}` };
let readOnly: Pipeline;
let writable: Pipeline;

beforeAll(async () => {
  readOnly = await startPipeline({ ADMIN_TOKEN: TOKEN });
  writable = await startPipeline({ ADMIN_TOKEN: TOKEN, BULL_BOARD_WRITES: 'true' });
});
afterAll(async () => {
  await readOnly?.stop();
  await writable?.stop();
});

/** A job in the failed set: a payload that fails its schema fails at once. */
async function failedJob({ queue }: Pipeline, jobId: string) {
  await queue.add('contact.v1', { v: 1, broken: true }, { jobId, attempts: 1 });
  await eventually(
    async () =>
      (await queue.getJob(jobId))?.failedReason !== undefined && (await queue.getJob(jobId))!.finishedOn !== undefined,
  );
}

const retry = ({ gateway, queue }: Pipeline, jobId: string) =>
  fetch(`${gateway.url}/admin/queues/api/queues/${queue.name}/${jobId}/retry`, { method: 'PUT', headers: auth });

it('by default the board is read-only: a retry is refused (405) and the job stays failed; nothing is audited', async () => {
  await failedJob(readOnly, 'sub_board_ro');
  const board = await fetch(`${readOnly.gateway.url}/admin/queues/api/queues`, { headers: auth });
  expect(board.status).toBe(200);
  const { queues } = (await board.json()) as { queues: { name: string; readOnlyMode: boolean }[] };
  expect(queues.find((q) => q.name === readOnly.queue.name)?.readOnlyMode).toBe(true);
  const res = await retry(readOnly, 'sub_board_ro');
  expect(res.status).toBe(405);
  expect(await (await readOnly.queue.getJob('sub_board_ro'))!.getState()).toBe('failed');
  const audit = await runOps(['audit', '--json'], readOnly.env);
  expect(audit.code, audit.stderr).toBe(0);
  expect(audit.json.actions).toEqual([]);
});

it('with BULL_BOARD_WRITES=true a retry goes through and the audit trail holds it: actor, path, job id, outcome', async () => {
  await failedJob(writable, 'sub_board_rw');
  const res = await retry(writable, 'sub_board_rw');
  expect(res.status).toBe(204);
  await eventually(async () => ((await writable.queue.getJob('sub_board_rw'))?.attemptsMade ?? 0) >= 2);
  const audit = await runOps(['audit', '--json'], writable.env);
  expect(audit.code, audit.stderr).toBe(0);
  expect(audit.json.actions).toHaveLength(1);
  expect(audit.json.actions[0]).toMatchObject({
    actor: 'bull-board',
    action: 'bull-board PUT',
    filter: { path: `/admin/queues/api/queues/${writable.queue.name}/sub_board_rw/retry` },
    jobIds: ['sub_board_rw'],
    count: 1,
    outcome: 'ok',
    changed: 1,
  });
});
