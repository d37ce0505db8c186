import { afterAll, beforeAll, expect, it } from 'vitest';
import { failReplayAndCheck, sendSubmissions } from '../support/ops-flow.ts';
import { type Pipeline, startPipeline } from '../support/pipeline.ts';

// The same launch-day flow against the Postgres store (PGlite, or the PostgreSQL at DATABASE_URL): the
// store refuses every new submission row (a CHECK (false) constraint, NOT VALID so existing rows stand),
// each job fails through the shortened retry schedule, ops see and replay them after the constraint goes.
let pipeline: Pipeline;

beforeAll(async () => {
  pipeline = await startPipeline({ RETRY_BASE_DELAY_MS: '5', RETRY_MAX_DELAY_MS: '40' });
});
afterAll(async () => {
  await pipeline?.stop();
});

async function records(): Promise<Map<string, number>> {
  const { rows } = await pipeline.db.query<{ record_id: string; n: number }>(
    'SELECT record_id, count(*)::int AS n FROM submissions GROUP BY record_id',
  );
  return new Map(rows.map((r) => [r.record_id, r.n]));
}

it('a store that refuses inserts: 200 failed, exactly those listed, replayed after the fix, 200 rows none twice', async () => {
  await pipeline.db.exec('ALTER TABLE submissions ADD CONSTRAINT ops_test_refuse CHECK (false) NOT VALID');
  const since = new Date().toISOString();
  const recordIds = await sendSubmissions(pipeline.gateway.url, 200, `opsPg-${Date.now()}`);
  await failReplayAndCheck({
    env: pipeline.env,
    queue: pipeline.queue,
    recordIds,
    since,
    expectCode: undefined,
    fix: () => pipeline.db.exec('ALTER TABLE submissions DROP CONSTRAINT ops_test_refuse'),
    records,
    completedBefore: 0,
  });
  const { rows } = await pipeline.db.query<{ n: number; ids: number }>(
    'SELECT count(*)::int AS n, count(DISTINCT id)::int AS ids FROM submissions',
  );
  expect(rows[0]).toEqual({ n: 200, ids: 200 });
  const { rows: contacts } = await pipeline.db.query<{ n: number }>('SELECT count(*)::int AS n FROM contacts');
  expect(contacts[0]!.n).toBe(50); // one in four submissions is a contact, each with its own email
}, 120_000);
