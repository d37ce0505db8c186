import { queueKey } from '@forms/schemas';
import { Cluster, Command, type Redis } from 'ioredis';
import type { GatewayConfig } from '../config.ts';
import { queueUnavailable, withRedisDeadline } from '../redis-deadline.ts';
import type { ProducerRedis } from './queue.ts';

/**
 * The durable ack (REDIS_ACK_REPLICAS): called right after the job is added, resolves once that many
 * replicas hold every write this gateway's connection has made to the queue's master, the job's included;
 * else QUEUE_UNAVAILABLE (503, Retry-After). Redis replication is asynchronous: without this, a master
 * killed right after answering can take the job with it, and the replica promoted in its place never saw it.
 *
 * WAIT counts the writes of the connection it is sent on, so it must go to the connection that took the
 * add. On one Redis that is the client itself. On a cluster, keyless WAIT would go to a random node; it is
 * sent instead to the pool's connection for the master of the queue's slot, the one ioredis sent the add
 * to, and the master it went to is answered: the add noted the master it was sent to (`queueSlotOwner`),
 * and if the two differ (the slot map changed in between: a failover, a slot move, a MOVED followed) the
 * WAIT's count is not the job's, and the enqueue treats it as a transition (held, tried again), never a 200.
 *
 * WAIT blocks its connection, and every request sharing it, until the replicas answer or the timeout:
 * that is the throughput cost `pnpm bench:durable-ack` measures.
 */
export async function waitForReplicas(
  redis: ProducerRedis,
  config: Pick<GatewayConfig, 'ackReplicas' | 'enqueueTimeoutMs' | 'redis' | 'queueName'>,
  slotOwner: () => string | undefined = queueSlotOwner(redis, config),
): Promise<string | undefined> {
  const wanted = config.ackReplicas;
  const owner = slotOwner();
  if (wanted <= 0) return owner;
  const node = redis instanceof Cluster ? masterNamed(redis, owner) : redis;
  // Redis gives up at the deadline and answers with the count so far; our own deadline, a little later,
  // only catches a node that does not answer at all.
  const acked = node
    ? await withRedisDeadline(node.wait(wanted, config.enqueueTimeoutMs), config.enqueueTimeoutMs + 250)
    : 0;
  if (acked < wanted) {
    // REPLICAS_BEHIND: a transition (a promoted master whose replica is not yet in sync) the hold rides through.
    throw queueUnavailable(
      Object.assign(
        new Error(`${acked} of ${wanted} replicas acknowledged the job within ${config.enqueueTimeoutMs} ms`),
        { code: 'REPLICAS_BEHIND' },
      ),
    );
  }
  return owner;
}

/**
 * Which master ioredis routes the queue's slot to now (`host:port`; undefined on one Redis): two property
 * reads, no allocation, so an add can note it when it is sent and check it against the node its WAIT went
 * to. They differ when the slot map changed in between (a failover, a slot move): the WAIT then counted
 * another node's writes, and its answer says nothing about the job (queue.ts treats that as a transition).
 * A stale master woken from a pause took an add, and the WAIT, sent after ioredis had learnt of the
 * promotion, was acknowledged by the promoted master's new replica: a 200 for a job that resync discarded
 * (test/cluster/master-killed-with-durable-acks-loses-nothing.test.ts, its stop case: 7 of 687 lost before this check).
 */
export function queueSlotOwner(
  redis: ProducerRedis,
  config: Pick<GatewayConfig, 'redis' | 'queueName'>,
): () => string | undefined {
  if (!(redis instanceof Cluster)) return () => undefined;
  // ioredis's own slot function (CRC16 of the hash tag), reached through a Command that is never sent.
  const slot = new Command('get', [queueKey(config.redis, config.queueName)]).getSlot();
  return () => redis.slots[slot]?.[0];
}

/** The pool's connection to the master named `host:port`, if it has one. */
function masterNamed(cluster: Cluster, owner: string | undefined): Redis | undefined {
  return cluster.nodes('master').find((node) => `${node.options.host}:${node.options.port}` === owner);
}
