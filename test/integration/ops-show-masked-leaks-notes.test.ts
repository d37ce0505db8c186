import { randomUUID } from 'node:crypto';
import { finalCvKey } from '@forms/object-storage';
import { toJobPayload } from '@forms/schemas';
import { Queue, Worker } from 'bullmq';
import { afterAll, beforeAll, expect, inject, it } from 'vitest';
import { runOps } from '../support/ops-cli.ts';
import { eventually } from '../support/wait.ts';

// Issue 19, item 6: masked `ops show` masked the personal fields by name but printed free text as it came
// (a note "call me on +44 7700 900123") and the CV's original file name (often the applicant's name); and
// `ops replay <unknown id>` exited 0, where docs/operations.md#the-ops-cli promises 1 for nothing found.
const queueName = `ops-mask-${randomUUID()}`;
let queue: Queue;
let env: Record<string, string>;
const ids = { contact: 'sub_01jz0000000000000000000001', careers: 'sub_01jz0000000000000000000002' };
const PHONE = '+44 7700 900123';
const OTHER_PHONE = '07700 900456';

beforeAll(async () => {
  env = { REDIS_URL: inject('redisUrl'), QUEUE_NAME: queueName };
  queue = new Queue(queueName, { connection: { url: env.REDIS_URL } });
  const at = { acceptedAt: new Date().toISOString() };
  await queue.add(
    'contact.v1',
    toJobPayload(
      'contact',
      { email: 'ada@acme.io', name: 'Ada Quillfeather', message: `call me on ${PHONE} after six` },
      { submissionId: ids.contact, recordId: 'con_01jz0000000000000000000001', ...at },
    ),
    { jobId: ids.contact },
  );
  await queue.add(
    'careers-apply.v1',
    toJobPayload(
      'careers-apply',
      {
        name: 'Grace Quillfeather',
        email: 'grace@acme.io',
        role: 'Engineer',
        note: `or on ${OTHER_PHONE}`,
        stagedCv: {
          key: 'incoming/cv/abc.pdf',
          filename: 'Grace_Quillfeather_CV.pdf',
          contentType: 'application/pdf',
          size: 1000,
          sha256: 'a'.repeat(64),
        },
      },
      { submissionId: ids.careers, recordId: ids.careers, ...at },
    ),
    { jobId: ids.careers },
  );
});
afterAll(async () => {
  await queue?.obliterate({ force: true });
  await queue?.close();
});

it('masked `ops show` keeps phones in free text and the CV file name out, text and JSON', async () => {
  for (const id of [ids.contact, ids.careers]) {
    for (const json of [[], ['--json']]) {
      const run = await runOps(['show', id, ...json], env);
      expect(run.code, run.stderr).toBe(0);
      for (const secret of [
        PHONE,
        '7700 900123',
        OTHER_PHONE,
        '900456',
        'Quillfeather',
        'ada@acme.io',
        'grace@acme.io',
      ])
        expect(run.stdout, `${id} ${json} ${secret}`).not.toContain(secret);
    }
  }
  // Still recognisable: the extension of the file, the rest of the note.
  const careers = await runOps(['show', ids.careers, '--json'], env);
  const payload = careers.json.submissions[0].payload;
  expect(payload.stagedCv.filename).toMatch(/\.pdf$/);
  expect(payload.note).toContain('or on');
  // --reveal shows it all, as before.
  const revealed = await runOps(['show', ids.careers, '--reveal', '--json'], env);
  expect(revealed.json.submissions[0].payload.stagedCv.filename).toBe('Grace_Quillfeather_CV.pdf');
});

it('`ops replay <unknown id>` exits 1 (nothing found), text and JSON', async () => {
  for (const json of [[], ['--json']]) {
    const run = await runOps(['replay', 'sub_01jz00000000000000000nope', ...json], env);
    expect(run.code, run.stdout + run.stderr).toBe(1);
  }
  // …and a known id that is not failed is not an error: skipped, exit 0.
  expect((await runOps(['replay', ids.contact], env)).code).toBe(0);
});

// Issue 54, item 2: `ops show` of a delivered application named the staged key `incoming/cv/…`, which the
// worker deletes once it has copied the CV to its final key.
it('ops-show-names-where-the-cv-is-now: staged while queued, the final key once delivered', async () => {
  const final = finalCvKey(ids.careers, 'application/pdf');
  expect(final).toMatch(/^cv\//);
  const queued = await runOps(['show', ids.careers, '--json'], env);
  expect(queued.json.submissions[0].cv).toBe(`incoming/cv/abc.pdf (staged; at ${final} once delivered)`);
  // Delivered: completed by a worker of this test's own (the CRM and the copy are the real worker's tests').
  const worker = new Worker(queueName, async () => ({}), { connection: { url: env.REDIS_URL } });
  try {
    await eventually(async () => (await queue.getJobState(ids.careers)) === 'completed', {
      timeoutMs: 10_000,
      explain: () => 'the careers job never completed',
    });
  } finally {
    await worker.close();
  }
  const delivered = await runOps(['show', ids.careers], env);
  expect(delivered.stdout).toMatch(new RegExp(`\\n  cv +${final.replace(/[.]/g, '\\.')}\\n`));
});
