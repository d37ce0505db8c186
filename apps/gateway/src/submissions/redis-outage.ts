import type { ProducerRedis } from './queue.ts';

/**
 * How long the gateway's Redis has been unreachable, in ms: 0 while it answers, Infinity when it has not
 * answered since the gateway started. The transition hold asks it before holding a request: an outage older
 * than the hold (or one since start) will not end within it, so its 503 is sent at once (issue 54: a gateway
 * started with Redis down made every POST wait the full 10 s for the same 503).
 *
 * Read from the connection's own events, attached before its first connect: `close` when the connection is
 * lost (a single Redis down or restarting; a cluster whose every node is gone), `ready` when it answers
 * again. A cluster losing one master stays `ready` while a replica is promoted: a transition the hold rides.
 */
export function watchRedisOutage(redis: ProducerRedis, now = () => performance.now()): () => number {
  let downSince: number | undefined = Number.NEGATIVE_INFINITY;
  redis.on('ready', () => {
    downSince = undefined;
  });
  redis.on('close', () => {
    downSince ??= now();
  });
  return () => (downSince === undefined ? 0 : now() - downSince);
}
