import { randomUUID } from 'node:crypto';
import { HONEYPOT_FIELD } from '@forms/schemas';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { sendJson } from '../support/http.ts';
import { runOps } from '../support/ops-cli.ts';
import { type Pipeline, startPipeline } from '../support/pipeline.ts';
import { validBody } from '../support/valid-bodies.ts';
import { eventually } from '../support/wait.ts';

// `ops spam` takes the ids `ops show` takes: a contact's recordId (con_…) names its delivered submissions and
// a held one answered with it, an Idempotency-Key the submission its first request made. A held submission
// ops marked shows the mark in `spam list` and `spam show`; `mark --ham` leaves it held and says how to
// release it (issue 54, item 2).
let pipeline: Pipeline;
let client = 0;

beforeAll(async () => {
  pipeline = await startPipeline({ TRUST_PROXY: 'true', OPS_ACTOR: 'id-test' });
}, 120_000);
afterAll(() => pipeline?.stop());

async function contact(extra: object = {}) {
  const key = randomUUID();
  const body = { ...validBody('contact', `ids-${randomUUID()}`), ...extra };
  const res = await sendJson(`${pipeline.gateway.url}/api/contact`, body, 'POST', {
    'x-forwarded-for': `203.0.113.${++client}`,
    'idempotency-key': key,
  });
  expect(res.status).toBe(200);
  return { recordId: res.body.recordId as string, key, email: String(body.email) };
}

it('spam mark and spam show take a delivered contact by its recordId (con_…)', async () => {
  const sent = await contact();
  expect(sent.recordId).toMatch(/^con_/);
  await eventually(
    async () => (await pipeline.db.query('SELECT 1 FROM contacts WHERE id = $1', [sent.recordId])).rows.length === 1,
  );
  const marked = await runOps(['spam', 'mark', sent.recordId, '--json'], pipeline.env);
  expect(marked.code, marked.stdout + marked.stderr).toBe(0);
  expect(marked.json).toMatchObject({ taught: 1, missing: 0, held: 0 });
  const shown = await runOps(['spam', 'show', sent.recordId], pipeline.env);
  expect(shown.code, shown.stdout + shown.stderr).toBe(0);
  expect(shown.stdout).toMatch(/^sub_\w+ {2}not held: completed in the queue .*; taught as spam$/m);
}, 60_000); // a delivery and two ops processes

it('a held contact is found by its recordId and by its Idempotency-Key; once marked, list and show say so', async () => {
  const held = await contact({ [HONEYPOT_FIELD]: 'x' });
  const byRecord = await runOps(['spam', 'show', held.recordId, '--json'], pipeline.env);
  expect(byRecord.code, byRecord.stderr).toBe(0);
  expect(byRecord.json).toMatchObject({ found: true, submission: { recordId: held.recordId } });
  expect(JSON.stringify(byRecord.json)).not.toContain(held.email);
  const id: string = byRecord.json.id;
  const byKey = await runOps(['spam', 'show', held.key, '--json'], pipeline.env);
  expect(byKey.json).toMatchObject({ id, found: true });

  const ham = await runOps(['spam', 'mark', '--ham', held.recordId], pipeline.env);
  expect(ham.code, ham.stderr).toBe(0);
  expect(ham.stdout).toContain(`still held, marked as reviewed: ${id} (\`ops spam release ${id}\` delivers them)`);
  expect(await pipeline.queue.getJob(id)).toBeUndefined(); // marking never delivers

  const listed = await runOps(['spam', 'list', '--json'], pipeline.env);
  expect(listed.json.submissions.find((s: { id: string }) => s.id === id).reviewed).toMatchObject({
    label: 'ham',
    by: 'id-test',
  });
  const text = await runOps(['spam', 'list'], pipeline.env);
  expect(text.stdout).toMatch(new RegExp(`^${id} .*reviewed: marked ham by id-test`, 'm'));
  const shown = await runOps(['spam', 'show', id], pipeline.env);
  expect(shown.stdout).toContain('reviewed: marked ham by id-test');
  expect(shown.stdout).toContain(`still held: \`ops spam release ${id}\` delivers it`);
}, 90_000); // six ops processes, a few seconds each on a busy machine
