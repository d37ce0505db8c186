import { randomUUID } from 'node:crypto';
import { HONEYPOT_FIELD } from '@forms/schemas';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { freshClient, sendJson } from '../support/http.ts';
import { runOps } from '../support/ops-cli.ts';
import { type Pipeline, startPipeline } from '../support/pipeline.ts';
import { validBody } from '../support/valid-bodies.ts';
import { eventually } from '../support/wait.ts';

// A honeypot hit (`website` filled: a bot, or a person's autofill) is answered like a success and kept in
// a bounded quarantine instead of being thrown away; `ops spam` lists, shows, releases and purges it.
// Release queues the original under its own submission id: released twice, delivered once. Rate-limited
// requests are not kept. Every release and purge is in `ops audit`, in order, with its count, and so is a reveal.
let pipeline: Pipeline;

beforeAll(async () => {
  pipeline = await startPipeline({
    OPS_ACTOR: 'spam-test',
    QUARANTINE_MAX: '5',
    // Each request from its own address, except where a test means to meet the limit.
    TRUST_PROXY: 'true',
    RATE_LIMIT_REQUESTS: '1',
  });
});
afterAll(() => pipeline?.stop());

async function send(path: string, body: object, { from = freshClient(), key = randomUUID() } = {}) {
  const res = await sendJson(`${pipeline.gateway.url}${path}`, body, 'POST', {
    'x-forwarded-for': from,
    'idempotency-key': key,
  });
  return { status: res.status, body: res.body as { recordId: string } };
}

const spamList = async () => (await runOps(['spam', 'list', '--json'], pipeline.env)).json;
const rowsFor = async (id: string) =>
  (await pipeline.db.query<{ n: number }>('SELECT count(*)::int AS n FROM submissions WHERE id = $1', [id])).rows[0]!.n;

it('a honeypot hit is answered like a success, never queued, kept, listed without personal data, shown masked', async () => {
  const signup = validBody('creator-signup', `pot-${randomUUID()}`);
  const trapped = await send('/api/creator-signup', { ...signup, [HONEYPOT_FIELD]: 'https://autofill.example' });
  expect(trapped.status).toBe(200);
  expect(trapped.body.recordId).toMatch(/^sub_/);
  expect(await pipeline.queue.getJob(trapped.body.recordId)).toBeUndefined();
  expect(pipeline.gateway.counters.honeypotQuarantined).toBe(1);

  const list = await runOps(['spam', 'list', '--json'], pipeline.env);
  expect(list.code, list.stderr).toBe(0);
  expect(list.json).toMatchObject({ count: 1, submissions: [{ id: trapped.body.recordId, kind: 'creator-signup' }] });
  expect(list.stdout).not.toContain('@');
  const shown = await runOps(['spam', 'show', trapped.body.recordId, '--json'], pipeline.env);
  expect(shown.json.submission.data.email).not.toBe(signup.email);
  expect(shown.json.submission.data.email).toMatch(/\*\*\*/);
  const revealed = await runOps(['spam', 'show', trapped.body.recordId, '--json', '--reveal'], pipeline.env);
  expect(revealed.json.submission.data.email).toBe(signup.email);
});

it('a rate-limited request is not quarantined (it never had a body worth keeping)', async () => {
  const from = '203.0.113.99';
  expect((await send('/api/creator-signup', validBody('creator-signup', `rl-${randomUUID()}`), { from })).status).toBe(
    200,
  );
  const limited = await send(
    '/api/creator-signup',
    { ...validBody('creator-signup', `rl-${randomUUID()}`), [HONEYPOT_FIELD]: 'x' },
    { from },
  );
  expect(limited.status).toBe(429);
  expect((await spamList()).count).toBe(1);
});

it('release queues the original under its own id: released twice (one after the other, and two at once), delivered once', async () => {
  const { submissions } = await spamList();
  const signupId: string = submissions[0].id;
  const first = await runOps(['spam', 'release', signupId, '--json'], pipeline.env);
  expect(first.code, first.stderr).toBe(0);
  expect(first.json).toMatchObject({ released: 1, missing: 0 });
  const again = await runOps(['spam', 'release', signupId, '--json'], pipeline.env);
  expect(again.code).toBe(0); // released already: the state asked for holds (spam-release-twice-exits-1)
  expect(again.json).toMatchObject({ released: 0, alreadyReleased: 1, missing: 0 });

  const contact = validBody('contact', `pot-${randomUUID()}`);
  const trapped = await send('/api/contact', { ...contact, [HONEYPOT_FIELD]: 'x' });
  const contactSubmission = (await spamList()).submissions.find((s: { kind: string }) => s.kind === 'contact').id;
  const both = await Promise.all([
    runOps(['spam', 'release', contactSubmission, '--json'], pipeline.env),
    runOps(['spam', 'release', contactSubmission, '--json'], pipeline.env),
  ]);
  expect(both.map((r) => r.json.released + r.json.alreadyReleased)).toEqual([1, 1]);

  await eventually(async () => (await rowsFor(signupId)) === 1 && (await rowsFor(contactSubmission)) === 1);
  for (const id of [signupId, contactSubmission]) {
    const job = await pipeline.queue.getJob(id);
    expect(await job!.getState()).toBe('completed');
    expect(job!.attemptsMade).toBe(1);
  }
  const { rows } = await pipeline.db.query<{ id: string }>('SELECT id FROM contacts WHERE email = $1', [contact.email]);
  expect(rows.map((r) => r.id)).toEqual([trapped.body.recordId]); // the contact id the bot was answered
  expect((await spamList()).count).toBe(0);
});

it(`bounded: past QUARANTINE_MAX the oldest go first; purge --all --yes empties it`, async () => {
  const ids: string[] = [];
  for (let i = 0; i < 7; i++)
    ids.push(
      (
        await send('/api/creator-signup', {
          ...validBody('creator-signup', `b-${i}-${randomUUID()}`),
          [HONEYPOT_FIELD]: 'x',
        })
      ).body.recordId,
    );
  const kept = await spamList();
  expect(kept.count).toBe(5);
  expect(new Set(kept.submissions.map((s: { id: string }) => s.id))).toEqual(new Set(ids.slice(2)));
  const refused = await runOps(['spam', 'purge', '--all'], pipeline.env);
  expect(refused.code).toBe(2);
  const purged = await runOps(['spam', 'purge', '--all', '--yes', '--json'], pipeline.env);
  expect(purged.json).toEqual({ removed: 5 });
  expect((await spamList()).count).toBe(0);
});

it('ops audit --json lists the actions these tests took, in order, with their counts', async () => {
  const audit = await runOps(['audit', '--json'], pipeline.env);
  expect(audit.code, audit.stderr).toBe(0);
  const steps = audit.json.actions.map(
    (a: { action: string; actor: string; count: number; changed: number; outcome: string }) => [
      a.action,
      a.actor,
      a.count,
      a.outcome,
    ],
  );
  // The first test's `show --reveal`: who saw whose data is recorded.
  expect(steps[0]).toEqual(['spam reveal', 'spam-test', 1, 'ok']);
  expect(steps.slice(1, 3)).toEqual([
    ['spam release', 'spam-test', 1, 'ok'],
    ['spam release', 'spam-test', 0, 'ok'],
  ]);
  // The two releases at once each meant to release the one submission; whichever came second found it gone
  // or added nothing (BullMQ keeps one job per id).
  expect(steps.slice(3, 5)).toEqual([
    ['spam release', 'spam-test', expect.any(Number), 'ok'],
    ['spam release', 'spam-test', expect.any(Number), 'ok'],
  ]);
  expect(steps.slice(5)).toEqual([['spam purge', 'spam-test', 5, 'ok']]);
  expect(audit.json.actions[5].changed).toBe(5);
  expect(JSON.stringify(audit.json)).not.toContain('@');
});
