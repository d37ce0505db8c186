import { expect, it } from 'vitest';
import { failoverUnderLoad, transitionAnswers } from '../support/failover-under-load.ts';
import { countStatuses } from '../support/submit-many.ts';

// The queue's master SIGSTOPped (alive, holding the gateway's and the worker's connections, answering
// nothing) until its replica is promoted, then SIGCONTed: a stale master that learns it was failed over and
// rejoins as a replica. Durable acks on. Requests sent to it meet timeouts, then MOVED; the gateway holds
// them (REDIS_HOLD_MS) until the new master has a replica in sync. Before the hold: 206 × 503 in about 5 s.
it('holds requests through a stale master failing over (no 503), and delivers every 200 exactly once', async () => {
  const run = await failoverUnderLoad({ ackReplicas: 1, fault: 'stop' });
  const statuses = countStatuses(run.answers);
  const seen = transitionAnswers(run);
  console.log(
    `[cluster] stale master, durable acks on: ${JSON.stringify(statuses)}, promoted after ${run.promotedAfterMs} ms, ` +
      `a replica in sync again after ${seen.transitionMs} ms, ${seen.heldAcross.length} held across it; ` +
      `${run.acknowledged} acknowledged, ${run.lost.length} lost, ${run.duplicated.length} duplicated, ` +
      `${run.spentAttempts.length} jobs spent an attempt ${JSON.stringify(run.spentAttempts.slice(0, 3))}`,
  );
  expect(Object.keys(statuses).filter((s) => s !== '200' && s !== '503')).toEqual([]);
  expect(seen.unexplained503).toEqual([]);
  expect(seen.acknowledgedWithoutReplica).toEqual([]);
  expect(run.lost).toEqual([]);
  expect(run.duplicated).toEqual([]);
  expect(seen.heldAcross.length).toBeGreaterThan(0);
}, 180_000);
