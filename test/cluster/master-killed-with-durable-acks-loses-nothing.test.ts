import { expect, it } from 'vitest';
import { failoverUnderLoad, transitionAnswers } from '../support/failover-under-load.ts';
import { countStatuses } from '../support/submit-many.ts';

// REDIS_ACK_REPLICAS=1: a 200 means the job's write reached the replica, so the replica promoted when its
// master fails holds every acknowledged job. While the shard has no replica in sync WAIT cannot be
// satisfied: the gateway holds the request (REDIS_HOLD_MS) and answers 200 once a replica holds the job, or
// 503 if the hold runs out first. Never a hang, never another 5xx, never a 200 it cannot keep. Two faults:
// - kill: the master SIGKILLed, its replica promoted, the node restarted. Before the hold: 103-105 of 150
//   requests in the window were 503.
// - stop: the master SIGSTOPped (alive, holding the gateway's and the worker's connections, answering
//   nothing) until its replica is promoted, then SIGCONTed: a stale master that learns it was failed over and
//   rejoins as a replica. Requests sent to it meet timeouts, then MOVED. Before the hold: 206 × 503 in about 5 s.
for (const fault of ['kill', 'stop'] as const) {
  it(`holds requests through a master failover (${fault}) shorter than the hold (no 503), and delivers every 200 exactly once`, async () => {
    const run = await failoverUnderLoad({ ackReplicas: 1, fault });
    const statuses = countStatuses(run.answers);
    const seen = transitionAnswers(run);
    console.log(
      `[cluster] failover (${fault}), durable acks on: ${JSON.stringify(statuses)}, promoted after ${run.promotedAfterMs} ms, ` +
        `a replica in sync again after ${seen.transitionMs} ms, ${seen.heldAcross.length} held across it; ` +
        `${run.acknowledged} acknowledged, ${run.lost.length} lost, ${run.duplicated.length} duplicated, ` +
        `${run.spentAttempts.length} jobs spent an attempt ${JSON.stringify(run.spentAttempts.slice(0, 3))}`,
    );
    expect(Object.keys(statuses).filter((s) => s !== '200' && s !== '503')).toEqual([]);
    expect(seen.unexplained503).toEqual([]);
    expect(seen.acknowledgedWithoutReplica).toEqual([]);
    expect(run.lost).toEqual([]);
    expect(run.duplicated).toEqual([]);
    // How many requests the failover happened to catch in flight is printed, not asserted: a run where none
    // was, with nothing lost, kept every promise (it failed CI once when it asserted more than none).
    if (fault === 'kill') expect(run.acknowledgedAfterRecovery).toBeGreaterThan(0); // acks came back once a replica was in sync
  }, 180_000);
}
