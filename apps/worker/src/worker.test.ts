import { randomUUID } from 'node:crypto';
import { freePort } from '@forms/local-services';
import { JOB_OPTIONS, RETRY_POLICY } from '@forms/schemas';
import { Queue, QueueEvents } from 'bullmq';
import { Redis } from 'ioredis';
import { pino } from 'pino';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { loadConfig } from './config.ts';
import { createPostgresCrm } from './crm/postgres-crm.ts';
import { openPostgres } from './db/database.ts';
import { createWorker } from './worker.ts';

const logger = pino({ level: 'silent' });
let redis: Redis;
beforeAll(() => {
  redis = new Redis(inject('redisUrl'), { maxRetriesPerRequest: null });
});
afterAll(() => redis.disconnect());

/** A queue, its events and a worker writing to a CRM; closed by the returned function. */
async function harness(crmUrl: string) {
  const queueName = `wk-${randomUUID()}`;
  const config = loadConfig({
    REDIS_URL: inject('redisUrl'),
    QUEUE_NAME: queueName,
    RETRY_BASE_DELAY_MS: '2',
    RETRY_MAX_DELAY_MS: '20',
    LOG_LEVEL: 'silent',
  });
  const crm = createPostgresCrm(openPostgres(crmUrl, { max: 1 }));
  const queue = new Queue(queueName, { connection: redis });
  const events = new QueueEvents(queueName, { connection: { url: inject('redisUrl') } });
  await events.waitUntilReady();
  const worker = createWorker({ config, crm, logger });
  return {
    queue,
    events,
    async close() {
      await worker.close();
      await events.close();
      await queue.obliterate({ force: true });
      await queue.close();
      await crm.close();
    },
  };
}

const payload = {
  v: 1,
  submissionId: 'sub_1',
  recordId: 'sub_1',
  kind: 'caf-signup',
  acceptedAt: new Date().toISOString(),
  data: { email: 'a@acme.io' },
};

describe('worker failure handling', () => {
  it('fails at once, without retries, a payload that does not match its schema', async () => {
    const h = await harness(`postgres://127.0.0.1:${await freePort()}/none`);
    try {
      const bad = await h.queue.add(
        'caf-signup.v1',
        { ...payload, data: { email: 'not-an-email' } },
        { ...JOB_OPTIONS, jobId: 'bad' },
      );
      const unknown = await h.queue.add('nonsense.v9', payload, { ...JOB_OPTIONS, jobId: 'unknown' });
      await expect(bad.waitUntilFinished(h.events, 10_000)).rejects.toThrow(
        /Payload does not match caf-signup.v1: data.email/,
      );
      await expect(unknown.waitUntilFinished(h.events, 10_000)).rejects.toThrow(/Unknown job name/);
      expect((await h.queue.getJob('bad'))!.attemptsMade).toBe(1);
    } finally {
      await h.close();
    }
  });

  it('retries a CRM it cannot reach on the backoff schedule, then keeps the job in the failed set with its last error', async () => {
    const h = await harness(`postgres://127.0.0.1:${await freePort()}/none`);
    try {
      const job = await h.queue.add('caf-signup.v1', payload, { ...JOB_OPTIONS, jobId: 'unreachable' });
      await expect(job.waitUntilFinished(h.events, 20_000)).rejects.toThrow(/ECONNREFUSED/);
      const failed = (await h.queue.getJob('unreachable'))!;
      expect(failed.attemptsMade).toBe(RETRY_POLICY.attempts);
      expect(failed.failedReason).toMatch(/ECONNREFUSED/);
      expect(await h.queue.getFailedCount()).toBe(1);
    } finally {
      await h.close();
    }
  });
});
