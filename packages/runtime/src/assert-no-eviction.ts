import type { Cluster, Redis } from 'ioredis';

/** Redis would drop keys under memory pressure: refused at start-up unless REDIS_ALLOW_EVICTION says otherwise. */
export class EvictionPolicyError extends Error {
  override name = 'EvictionPolicyError';
}

/**
 * BullMQ keeps every job as ordinary keys, so a Redis that evicts under memory pressure can silently drop
 * acknowledged submissions. Reads `maxmemory_policy` from INFO (managed Redis often disables CONFIG GET)
 * and throws unless it is `noeviction`. `allowEviction` is the operator's explicit override
 * (REDIS_ALLOW_EVICTION=true) for someone who knows better, e.g. a Redis whose memory is never full.
 */
export async function assertNoEviction(redis: Redis | Cluster, { allowEviction = false } = {}): Promise<string> {
  // On a cluster every master holds queued jobs (and a replica may be promoted): each must refuse to evict.
  const nodes = 'nodes' in redis ? redis.nodes('all') : [redis];
  const policies = await Promise.all(
    nodes.map(async (node) => /^maxmemory_policy:(\S+)/m.exec(await node.info('memory'))?.[1] ?? 'unknown'),
  );
  const policy = policies.find((p) => p !== 'noeviction') ?? 'noeviction';
  if (policy !== 'noeviction' && !allowEviction) {
    throw new EvictionPolicyError(
      `Redis maxmemory-policy is "${policy}", but the queue needs "noeviction": with any other policy Redis may ` +
        'evict queued jobs, losing acknowledged submissions. Set `maxmemory-policy noeviction` (see ' +
        'infra/redis/redis.conf), or set REDIS_ALLOW_EVICTION=true if you accept that risk.',
    );
  }
  return policy;
}
