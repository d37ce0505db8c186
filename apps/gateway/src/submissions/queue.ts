import { queueTelemetry, requestJobContext } from '@forms/observability';
import {
  clusterNodeOptions,
  JOB_OPTIONS,
  type JobPayload,
  jobNameFor,
  type RedisSettings,
  type SubmissionKind,
} from '@forms/schemas';
import { Job, Queue } from 'bullmq';
import { Cluster, Redis } from 'ioredis';
import { queueUnavailable, withRedisDeadline } from '../redis-deadline.ts';
import type { TransitionHold } from './transition-hold.ts';

/** The gateway's Redis: one server, or a cluster (same commands; BullMQ takes either). */
export type ProducerRedis = Redis | Cluster;

/**
 * The producer's own connection fails fast: no offline queue, one try per command, a short connect
 * timeout. An outage then answers 503 at once instead of hanging requests; reconnects go on in the
 * background, so submissions flow again as soon as Redis is back. On a cluster the same holds per node,
 * and the slot map is refreshed every second so a promoted replica is found soon after a failover.
 *
 * No auto-pipelining: ioredis builds each auto-pipeline (and each `multi`) by copying every script defined
 * on the connection onto it, and BullMQ defines dozens. Side by side, a Koa server doing the claim and a
 * `queue.add` per request measured clearly slower with it (docs/architecture.md#the-submission-path). The
 * submission path batches its writes with `writeAtEndOfTurn` instead.
 */
export function createProducerRedis(settings: RedisSettings): ProducerRedis {
  const retry = (times: number) => Math.min(times * 100, 1_000);
  if (settings.mode === 'single') {
    return new Redis(settings.url, {
      enableOfflineQueue: false,
      maxRetriesPerRequest: 1,
      connectTimeout: 1_000,
      retryStrategy: retry,
    });
  }
  return new Cluster([...settings.nodes], {
    enableOfflineQueue: false,
    clusterRetryStrategy: retry,
    slotsRefreshTimeout: 1_000,
    slotsRefreshInterval: 1_000,
    redisOptions: {
      maxRetriesPerRequest: 1,
      connectTimeout: 1_000,
      ...clusterNodeOptions(settings),
    },
  });
}

/**
 * Holds the connection's writes until the end of this turn of the event loop, then sends them in one socket
 * write: the adds (and quarantined jobs) of every request handled in the turn leave together, and Redis
 * reads them in one go (the claims are one script call per turn already: `scriptBatch`). Call it before a command on the submission path; the first call in a turn corks the socket, and
 * an immediate uncorks it once the turn's callbacks and promise continuations have run (BullMQ's add reaches
 * the socket a few microtasks after `queue.add` is called, so `process.nextTick` would come too early).
 * Pipelining without ioredis's pipeline objects: nothing is copied per batch, and no command waits longer
 * than the turn it was made in. On a cluster, each primary's connection is held the same way.
 */
export function writeAtEndOfTurn(redis: ProducerRedis): void {
  if (redis instanceof Redis) holdUntilEndOfTurn(redis);
  else for (const node of redis.nodes('master')) holdUntilEndOfTurn(node);
}

function holdUntilEndOfTurn({ stream }: Redis): void {
  // No stream yet (never connected) or already held in this turn: nothing to do.
  if (!stream || stream.writableCorked) return;
  stream.cork();
  setImmediate(() => stream.uncork());
}

/**
 * `prefix` comes from RedisSettings: hash-tagged on a cluster, BullMQ's `bull` on a single Redis. With
 * tracing on, each add is a producer span (bullmq-otel) and the job carries its trace context to the worker.
 */
export function createSubmissionQueue(name: string, redis: ProducerRedis, prefix: string): Queue {
  const telemetry = queueTelemetry();
  return new Queue(name, { connection: redis, prefix, ...(telemetry ? { telemetry } : {}) });
}

export type Enqueue = <K extends SubmissionKind>(payload: JobPayload<K>) => Promise<void>;

/**
 * The durable ack (REDIS_ACK_REPLICAS > 0): which master the queue's slot is routed to now, and the WAIT,
 * which answers the master it waited on (wait-for-replicas.ts).
 */
export type DurableAck = { owner: () => string | undefined; wait: () => Promise<string | undefined> };

/** The slot changed masters between an add and its WAIT: the WAIT's count is not the add's. */
function slotMoved(): Error {
  return queueUnavailable(
    Object.assign(new Error("the queue's slot changed masters between the add and its WAIT"), { code: 'SLOT_MOVED' }),
  );
}

/**
 * Adds a job and resolves only once Redis has confirmed it. The job's id is the submission id, so adding
 * one again (a retry with the same Idempotency-Key, or a try again inside a hold) is a no-op in BullMQ.
 *
 * Each add is its own `queue.add` on the producer's connection. `durable` (the durable-ack WAIT) is shared:
 * adds confirmed in one turn of the event loop wait on one WAIT, sent on that connection in the next turn,
 * after all of their adds (Redis answers a connection's commands in order, so a WAIT counts every write made
 * before it). An add confirmed once that WAIT has been sent waits for the next one.
 *
 * `hold`: an add or a WAIT that fails in a Redis transition (a failover, a restart, a slot move) is tried
 * again, add and WAIT together, inside the request until it is confirmed or the hold runs out
 * (transition-hold.ts). Only from the `catch`: the ordinary path awaits exactly what it did without it.
 */
export function createEnqueue(
  queue: Queue,
  redis: ProducerRedis,
  timeoutMs: number,
  durable?: DurableAck,
  hold?: TransitionHold,
): Enqueue {
  let nextWait: Promise<string | undefined> | undefined;
  function replicated(wait: () => Promise<string | undefined>): Promise<string | undefined> {
    nextWait ??= new Promise<void>((resolve) => setImmediate(resolve)).then(() => {
      nextWait = undefined;
      return wait();
    });
    return nextWait;
  }
  // The durable ack holds only when the WAIT went to the master the add was sent to.
  async function addAndWait<K extends SubmissionKind>(payload: JobPayload<K>, ms: number): Promise<void> {
    const sentTo = durable?.owner();
    await add(payload, ms);
    if (durable && (await replicated(durable.wait)) !== sentTo) throw slotMoved();
  }
  function add<K extends SubmissionKind>(payload: JobPayload<K>, ms: number): Promise<unknown> {
    const opts = { ...JOB_OPTIONS, jobId: payload.submissionId };
    const name = jobNameFor(payload.kind);
    // Inside a traced request: the job BullMQ's add would make, carrying the request's trace context, without
    // the producer span (`Job.create` is what `add` calls inside its span; the queue has no default job
    // options for `add` to merge). The add is timed on the request's span (`submission.enqueue_ms`).
    const traceContext = requestJobContext();
    writeAtEndOfTurn(redis);
    const added = traceContext
      ? Job.create(queue, name, payload, { ...opts, telemetry: { metadata: traceContext } })
      : queue.add(name, payload, opts);
    return withRedisDeadline(added, ms);
  }
  return async function enqueue(payload) {
    // addAndWait's steps written out: the ordinary path awaits what it did before the hold, nothing more.
    const sentTo = durable?.owner();
    try {
      await add(payload, timeoutMs);
      if (durable && (await replicated(durable.wait)) !== sentTo) throw slotMoved();
    } catch (err) {
      if (!hold) throw err;
      // Held: the add under the same job id (a no-op if an earlier try landed, bar the `duplicated` event
      // BullMQ writes, which the WAIT then counts), then the WAIT again.
      await hold.ride(err, (ms) => addAndWait(payload, Math.min(ms, timeoutMs)), {
        key: payload.submissionId,
        bytes: JSON.stringify(payload).length,
        last: true,
      });
    }
  };
}
