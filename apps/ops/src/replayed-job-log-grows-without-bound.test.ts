import { randomUUID } from 'node:crypto';
import { JOB_LOG_ROWS, JOB_OPTIONS } from '@forms/schemas';
import { Queue } from 'bullmq';
import { Redis } from 'ioredis';
import { afterAll, expect, inject, it } from 'vitest';
import { recordReplay } from './replay-history.ts';

// A job's options no longer carry BullMQ's `keepLogs` (one key fewer to pack on every add): `job.log` would
// then keep every line, and a job replayed again and again would grow its log in Redis for ever. Whoever
// writes a line passes the bound itself.
const redis = new Redis(inject('redisUrl'), { maxRetriesPerRequest: null });
const queue = new Queue(`replay-log-${randomUUID()}`, { connection: redis });

afterAll(async () => {
  await queue.obliterate({ force: true });
  await queue.close();
  redis.disconnect();
});

it('keeps the newest JOB_LOG_ROWS lines of a job replayed more times than that', async () => {
  const job = await queue.add('contact.v1', {}, { ...JOB_OPTIONS, jobId: `sub_${randomUUID()}` });
  expect(job.opts).not.toHaveProperty('keepLogs');
  const replays = JOB_LOG_ROWS + 5;
  for (let run = 1; run <= replays; run++) await recordReplay(redis, queue, job, 14);

  const { logs, count } = await queue.getJobLogs(String(job.id), 0, -1);
  expect(count).toBe(JOB_LOG_ROWS);
  expect(logs.at(-1)).toMatch(new RegExp(`run ${replays + 1} starts$`));
  expect(logs[0]).toMatch(new RegExp(`run ${replays + 2 - JOB_LOG_ROWS} starts$`));
});
