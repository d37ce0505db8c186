import { JOB_LOG_ROWS } from '@forms/schemas';
import { Job, type Queue } from 'bullmq';
import type { OpsRedis } from './open-queue.ts';

// Two fields of our own in BullMQ's job hash (BullMQ reads and writes only its own): they go with the job
// (removal, erase) and sit in its hash slot. `ops replay` starts the attempts again from zero, so without
// them a replayed job's `attemptsMade` says nothing of the runs before (issue 30.8: `delivered attempts 1`
// above fourteen failed attempts).
const ATTEMPTS_BEFORE = 'opsAttemptsBefore';
const REPLAYS = 'opsReplays';

export type ReplayHistory = { attemptsBefore: number; replays: number };

/**
 * Records, once `job` is back in the queue, the attempts its finished run made, and a line in the job's
 * own log where the new run starts (ops show lists the log). `attemptsMade` is the count read before the
 * replay reset it.
 */
export async function recordReplay(redis: OpsRedis, queue: Queue, job: Job, attemptsMade: number): Promise<void> {
  const [[, replays] = []] =
    (await redis
      .multi()
      .hincrby(queue.toKey(String(job.id)), REPLAYS, 1)
      .hincrby(queue.toKey(String(job.id)), ATTEMPTS_BEFORE, attemptsMade)
      .exec()) ?? [];
  await Job.addJobLog(
    queue,
    String(job.id),
    `${new Date().toISOString()} replayed by ops after ${attemptsMade} attempts: run ${Number(replays) + 1} starts`,
    JOB_LOG_ROWS,
  );
}

/** What the replays of job `id` left: zeros for a job never replayed. */
export async function readReplayHistory(redis: OpsRedis, queue: Queue, id: string): Promise<ReplayHistory> {
  const [attemptsBefore, replays] = await redis.hmget(queue.toKey(id), ATTEMPTS_BEFORE, REPLAYS);
  return { attemptsBefore: Number(attemptsBefore ?? 0), replays: Number(replays ?? 0) };
}
