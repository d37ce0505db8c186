import { type LocalRedisCluster, startRedisCluster } from '@forms/local-services';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { runOps } from '../support/ops-cli.ts';
import { failReplayAndCheck, sendSubmissions } from '../support/ops-flow.ts';
import { type Pipeline, startPipeline } from '../support/pipeline.ts';

// Seen: with REDIS_CLUSTER_NODES set, `ops` refused to start ("does not support REDIS_CLUSTER_NODES yet",
// exit 2), so a scaled-out deployment left ops with no tools for its failed writes. The launch-day flow of
// ops-postgres-replay, now on a 3-master, 3-replica cluster: the store refuses every new row, the jobs
// fail, `ops failed` lists exactly them, `ops replay` sends them again once the store is fixed, each is
// stored once; `ops status` and `ops show` read the same cluster, and so do the gateway's admin routes.
const TOKEN = 'admin-token-for-cluster-tests-0123';
let cluster: LocalRedisCluster;
let pipeline: Pipeline;

beforeAll(async () => {
  cluster = await startRedisCluster();
  pipeline = await startPipeline({
    REDIS_CLUSTER_NODES: cluster.seeds,
    ADMIN_TOKEN: TOKEN,
    RETRY_BASE_DELAY_MS: '5',
    RETRY_MAX_DELAY_MS: '40',
  });
}, 90_000);
afterAll(async () => {
  await pipeline?.stop();
  await cluster?.stop();
}, 60_000);

async function records(): Promise<Map<string, number>> {
  const { rows } = await pipeline.db.query<{ record_id: string; n: number }>(
    'SELECT record_id, count(*)::int AS n FROM submissions GROUP BY record_id',
  );
  return new Map(rows.map((r) => [r.record_id, r.n]));
}

it('ops failed, replay, show, status and the admin routes on a Redis Cluster: 40 failed writes listed, replayed, stored once', async () => {
  const env = pipeline.env;
  expect(env.REDIS_URL).toBeUndefined(); // the cluster only: nothing falls back to a single Redis
  await pipeline.db.exec('ALTER TABLE submissions ADD CONSTRAINT ops_cluster_refuse CHECK (false) NOT VALID');
  const since = new Date().toISOString();
  const recordIds = await sendSubmissions(pipeline.gateway.url, 40, `opsCluster-${Date.now()}`);
  await failReplayAndCheck({
    env,
    queue: pipeline.queue,
    recordIds,
    since,
    expectCode: undefined,
    fix: () => pipeline.db.exec('ALTER TABLE submissions DROP CONSTRAINT ops_cluster_refuse'),
    records,
    completedBefore: 0,
  });

  const status = await runOps(['status', '--json'], env);
  expect(status.code, status.stderr).toBe(0);
  expect(status.json.counts).toMatchObject({ failed: 0, completed: 40, waiting: 0 });
  const shown = await runOps(['show', recordIds[1]!, '--json'], env);
  expect(shown.code, shown.stderr).toBe(0);
  expect(shown.json.submissions[0]).toMatchObject({ state: 'delivered', kind: 'creator-signup' });

  // The same answers through the gateway's admin wing, for whoever has a browser rather than a terminal.
  const headers = { authorization: `Bearer ${TOKEN}` };
  const byRecord = await fetch(`${pipeline.gateway.url}/admin/submissions/${recordIds[1]}`, { headers });
  expect(byRecord.status).toBe(200);
  expect((await byRecord.json()).submissions[0]).toMatchObject({ state: 'delivered', kind: 'creator-signup' });
  const board = await fetch(`${pipeline.gateway.url}/admin/queues/api/queues`, { headers });
  expect(board.status).toBe(200);
  expect(JSON.stringify(await board.json())).toContain(env.QUEUE_NAME!);
}, 120_000);
