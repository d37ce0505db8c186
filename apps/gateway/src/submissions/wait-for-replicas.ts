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
 * to. This runs in the same turn of the event loop as the add's reply (only promise continuations in
 * between), so no reconnect or slot-map change can come between the two; if the master changed anyway
 * (a MOVED), WAIT lands on a connection that never saw the job and counts what *it* wrote, which a
 * just-promoted master with no replica yet answers with 0: a 503, never a false 200.
 *
 * WAIT blocks its connection, and every request sharing it, until the replicas answer or the timeout:
 * that is the throughput cost `pnpm bench:durable-ack` measures.
 */
export async function waitForReplicas(
  redis: ProducerRedis,
  config: Pick<GatewayConfig, 'ackReplicas' | 'enqueueTimeoutMs' | 'redis' | 'queueName'>,
): Promise<void> {
  const wanted = config.ackReplicas;
  if (wanted <= 0) return;
  const node = redis instanceof Cluster ? masterOfSlot(redis, queueKey(config.redis, config.queueName)) : redis;
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
}

/** The pool's connection to the master that ioredis routes `key`'s slot to, if it has one. */
function masterOfSlot(cluster: Cluster, key: string): Redis | undefined {
  // ioredis's own slot function (CRC16 of the hash tag), reached through a Command that is never sent.
  const slot = new Command('get', [key]).getSlot();
  const owner = cluster.slots[slot]?.[0];
  return cluster.nodes('master').find((node) => `${node.options.host}:${node.options.port}` === owner);
}
