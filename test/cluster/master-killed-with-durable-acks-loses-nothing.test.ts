import { expect, it } from 'vitest';
import { failoverUnderLoad } from '../support/failover-under-load.ts';
import { countStatuses } from '../support/submit-many.ts';

// REDIS_ACK_REPLICAS=1: a 200 means the job's write reached the replica, so the replica promoted when its
// master is SIGKILLed holds every acknowledged job. While the shard has no replica (from the kill until
// the restarted node has resynced) WAIT cannot be satisfied and the gateway answers 503: never a hang,
// never another 5xx, never a 200 it cannot keep.
it('answers 200 or 503 through a master failover, and delivers every 200 exactly once', async () => {
  const run = await failoverUnderLoad({ ackReplicas: 1 });
  const statuses = countStatuses(run.answers);
  console.log(
    `[cluster] failover, durable acks on: ${JSON.stringify(statuses)}, promoted after ${run.promotedAfterMs} ms, ` +
      `${run.acknowledged} acknowledged, ${run.lost.length} lost, ${run.duplicated.length} duplicated`,
  );
  expect(Object.keys(statuses).filter((s) => s !== '200' && s !== '503')).toEqual([]);
  expect(run.lost).toEqual([]);
  expect(run.duplicated).toEqual([]);
  expect(statuses[503]).toBeGreaterThan(0); // the failover did reach the requests
  expect(run.acknowledgedAfterRecovery).toBeGreaterThan(0); // and acks came back once a replica was in sync
}, 180_000);
