/**
 * Redis reply errors a failover, a restart or a slot move explains: the cluster down or electing
 * (CLUSTERDOWN, MASTERDOWN), a multi-key command whose keys are split by a slot being migrated (TRYAGAIN),
 * redirections (MOVED, ASK; ioredis follows them itself, so one reaching us is a storm it gave up on), a
 * node still loading its append-only file (LOADING), a write that reached a master just demoted (READONLY),
 * a blocking command (the durable-ack WAIT) on a master demoted while it waited (UNBLOCKED), or demoted
 * before it read the WAIT (a stale master woken from a pause reads what was sent to it as a replica).
 */
const TRANSITION_REPLIES =
  /^(?:(?:CLUSTERDOWN|MASTERDOWN|TRYAGAIN|MOVED|ASK|LOADING|READONLY|UNBLOCKED)\b|ERR WAIT cannot be used with replica)/;

/** Socket errors of a node going away or not back yet. */
const TRANSITION_CODES = new Set([
  'ECONNREFUSED',
  'ECONNRESET',
  'EPIPE',
  'ETIMEDOUT',
  'EHOSTUNREACH',
  'ENOTCONN',
  // The gateway's own: a call past its deadline (redis-deadline.ts), the durable-ack WAIT short of replicas
  // (wait-for-replicas.ts) or sent to another master than its add (queue.ts).
  'REDIS_DEADLINE',
  'REPLICAS_BEHIND',
  'SLOT_MOVED',
]);

/**
 * ioredis's own messages for a connection that is closed, not writable, not ready or out of retries (the
 * producer fails fast: no offline queue, one retry per command), and for a cluster whose slot map it could
 * not follow.
 */
const TRANSITION_MESSAGES = [
  'Connection is closed',
  "Stream isn't writeable",
  "Cluster isn't ready",
  'Cluster is disconnected',
  'Too many Cluster redirections',
  'Reached the max retries per request',
  'None of startup nodes is available',
  'Failed to refresh slots cache',
  'Command aborted due to connection close',
  'Connection is aborted',
  'Node is disconnected',
  'No master node is available',
];

/**
 * The one place that decides whether a Redis failure is a transition (a failover, a restart, a slot move)
 * that will end on its own in seconds, rather than a fault that waiting does not mend (out of memory, a
 * script error, a wrong type). The gateway holds a submission through a transition (transition-hold.ts);
 * the worker does not spend a job's attempt on one. Follows `cause` (the gateway wraps Redis errors in its
 * 503), a few links deep.
 */
export function isRedisTransition(err: unknown): boolean {
  let e = err as { message?: unknown; code?: unknown; cause?: unknown } | undefined;
  for (let depth = 0; e && depth < 4; depth++, e = e.cause as typeof e) {
    if (typeof e.code === 'string' && TRANSITION_CODES.has(e.code)) return true;
    const message = typeof e.message === 'string' ? e.message : '';
    if (TRANSITION_REPLIES.test(message)) return true;
    if (TRANSITION_MESSAGES.some((m) => message.startsWith(m))) return true;
  }
  return false;
}
