import type { JobPayload } from '@forms/schemas';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type Database, openPglite } from '../db/database.ts';
import { migrate } from '../db/migrate.ts';
import { createPostgresCrm } from './postgres-crm.ts';

let db: Database;
beforeAll(async () => {
  db = await openPglite();
  expect(await migrate(db)).toContain('001_init.sql');
  expect(await migrate(db)).toEqual([]); // applied once only
});
afterAll(() => db.close());

function contact(submissionId: string, acceptedAt: string, data: Record<string, unknown>): JobPayload {
  return {
    v: 1,
    submissionId,
    recordId: 'con_1',
    kind: 'contact-update',
    acceptedAt,
    data: { email: 'a@acme.io', ...data },
  } as JobPayload;
}

describe('postgres crm', () => {
  it('delivering the same submission twice leaves one row (retry, stalled rerun, replay)', async () => {
    const crm = createPostgresCrm(db);
    const submission = {
      v: 1,
      submissionId: 'sub_x',
      recordId: 'sub_x',
      kind: 'caf-signup',
      acceptedAt: '2026-01-01T00:00:00.000Z',
      data: { email: 'x@acme.io' },
    } as JobPayload;
    expect(await crm.deliver(submission)).toEqual({ crmRecordId: 'sub_x' });
    expect(await crm.deliver(submission)).toEqual({ crmRecordId: 'sub_x' });
    const { rows } = await db.query('SELECT id, record_id, kind FROM submissions WHERE id = $1', ['sub_x']);
    expect(rows).toEqual([{ id: 'sub_x', record_id: 'sub_x', kind: 'caf-signup' }]);
  });

  it('merges contacts per email: newer fields win, a late older submission only fills gaps', async () => {
    const crm = createPostgresCrm(db);
    await crm.deliver(contact('sub_2', '2026-01-02T00:00:00.000Z', { name: 'Newer', pricingTier: 'mid' }));
    await crm.deliver(contact('sub_1', '2026-01-01T00:00:00.000Z', { name: 'Older', monthlyBudget: '5k' }));
    await crm.deliver(contact('sub_1', '2026-01-01T00:00:00.000Z', { name: 'Older', monthlyBudget: '5k' })); // replay
    const { rows } = await db.query('SELECT id, fields FROM contacts WHERE email = $1', ['a@acme.io']);
    expect(rows).toEqual([
      { id: 'con_1', fields: { email: 'a@acme.io', name: 'Newer', pricingTier: 'mid', monthlyBudget: '5k' } },
    ]);
    const subs = await db.query('SELECT id FROM submissions WHERE email = $1 ORDER BY id', ['a@acme.io']);
    expect(subs.rows).toEqual([{ id: 'sub_1' }, { id: 'sub_2' }]);
  });
});
