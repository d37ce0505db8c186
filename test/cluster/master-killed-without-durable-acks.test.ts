import { expect, it } from 'vitest';
import { failoverUnderLoad, transitionAnswers } from '../support/failover-under-load.ts';
import { countStatuses } from '../support/submit-many.ts';

// REDIS_ACK_REPLICAS=0 (the default): a 200 means the master has the job. Replication is asynchronous, so
// a master SIGKILLed right after answering can take its last jobs with it. This measures how many: it
// passes whatever the count (docs/scaling-out.md states the trade-off; docs/benchmarks.md#cluster-failover-and-durable-acks the figures).
// The kill-to-promotion window is shorter than the hold: requests in it are held, never answered 503.
it('holds requests through a master failover (no 503), and reports acknowledged submissions lost with it', async () => {
  const run = await failoverUnderLoad({ ackReplicas: 0 });
  const statuses = countStatuses(run.answers);
  const seen = transitionAnswers(run);
  console.log(
    `[cluster] failover, durable acks off: ${JSON.stringify(statuses)}, promoted after ${run.promotedAfterMs} ms, ` +
      `${run.acknowledged} acknowledged, ${run.lost.length} lost, ${run.duplicated.length} duplicated`,
  );
  // Where the lost ones fell: answered (ms after the kill) and how long each was held.
  const lostAt = run.answers
    .filter((a) => run.lost.includes(a.email))
    .map((a) => `${a.at - run.faultAt}/${Math.round(a.ms)}`);
  console.log(
    `[cluster] lost, answered ms after the kill / held ms: ${lostAt.join(' ')}; restarted ${run.lastWithoutReplicaAt - run.faultAt} ms after the kill`,
  );
  expect(Object.keys(statuses).filter((s) => s !== '200' && s !== '503')).toEqual([]);
  expect(seen.unexplained503).toEqual([]);
  expect(run.duplicated).toEqual([]);
  expect(run.acknowledgedAfterRecovery).toBeGreaterThan(0);
}, 180_000);
