import type { JobPayload, SpamJudgement } from '@forms/schemas';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { type Database, openPglite } from '../db/database.ts';
import { migrate } from '../db/migrate.ts';
import { createPostgresCrm } from './postgres-crm.ts';

// A contact's spam score and unsure reasons are its latest judged submission's, whatever order the writes
// arrive in (replays, retries, batches); an unjudged submission (queued before judgements travelled, or
// released from the quarantine) leaves them. Each submission's own row keeps its own.
let db: Database;
beforeAll(async () => {
  db = await openPglite();
  await migrate(db);
});
afterAll(() => db.close());

const half = (detail: string) => ({ layer: 'rules', code: 'links', detail, weight: 0.5 }) as const;
function contact(submissionId: string, day: number, judgement: SpamJudgement | undefined): JobPayload {
  return {
    v: 1,
    submissionId,
    recordId: 'con_s',
    kind: 'contact',
    acceptedAt: `2026-01-0${day}T00:00:00.000Z`,
    ...(judgement ? { judgement } : {}),
    data: { email: 's@acme.io', message: `day ${day}` },
  } as JobPayload;
}
const contactRow = async () =>
  (await db.query('SELECT spam_score, spam_reasons, marked_spam FROM contacts WHERE email = $1', ['s@acme.io']))
    .rows[0];

it('a contact keeps its latest judged submission’s spam score and reasons, in any order; marks stay', async () => {
  const crm = createPostgresCrm(db);
  await crm.deliver(contact('sub_s2', 2, { reasons: [half('2 >= 2')], score: 0.42 }));
  // Older, judged: its own row gets its own score, the contact keeps the newer one's.
  await crm.deliver(contact('sub_s1', 1, { reasons: [], score: 0.97 }));
  // Newer, unjudged: leaves the contact's as they are.
  await crm.deliver(contact('sub_s3', 3, undefined));
  expect(await contactRow()).toEqual({ spam_score: 0.42, spam_reasons: ['rules:links (2 >= 2)'], marked_spam: false });
  // Two in one batch (concurrent deliveries are written together): the newer wins there too.
  await Promise.all([
    crm.deliver(contact('sub_s5', 5, { reasons: [], score: 0.1 })),
    crm.deliver(contact('sub_s4', 4, { reasons: [half('3 >= 2')], score: 0.8 })),
  ]);
  expect(await contactRow()).toMatchObject({ spam_score: 0.1, spam_reasons: [] });
  const rows = await db.query('SELECT id, spam_score, spam_reasons FROM submissions WHERE email = $1 ORDER BY id', [
    's@acme.io',
  ]);
  expect(rows.rows).toEqual([
    { id: 'sub_s1', spam_score: 0.97, spam_reasons: [] },
    { id: 'sub_s2', spam_score: 0.42, spam_reasons: ['rules:links (2 >= 2)'] },
    { id: 'sub_s3', spam_score: null, spam_reasons: null },
    { id: 'sub_s4', spam_score: 0.8, spam_reasons: ['rules:links (3 >= 2)'] },
    { id: 'sub_s5', spam_score: 0.1, spam_reasons: [] },
  ]);

  // Marked: the submission's row and its contact; twice is harmless; an unknown id marks nothing.
  const target = { submissionId: 'sub_s2', kind: 'contact', email: 's@acme.io' } as const;
  expect(await crm.markSpam([target, { ...target, submissionId: 'sub_none' }])).toEqual(['sub_s2']);
  expect(await crm.markSpam([target])).toEqual(['sub_s2']);
  expect(await contactRow()).toMatchObject({ marked_spam: true });
  const marked = await db.query('SELECT id FROM submissions WHERE marked_spam ORDER BY id');
  expect(marked.rows).toEqual([{ id: 'sub_s2' }]);
  // A later delivery for the contact leaves the mark (only ops take it off).
  await crm.deliver(contact('sub_s6', 6, { reasons: [], score: 0.05 }));
  expect(await contactRow()).toMatchObject({ spam_score: 0.05, marked_spam: true });
});
