import { randomUUID } from 'node:crypto';
import { opsKeys } from '@forms/schemas';
import { Queue, Worker } from 'bullmq';
import { Redis } from 'ioredis';
import { afterAll, beforeAll, expect, inject, it } from 'vitest';
import { createQuarantine } from './hold-submission.ts';
import { releaseHeld } from './review-held.ts';

// The worker's judge holds a job and completes it with `{ held: true }`; the job stays in the queue until
// the worker's listener removes it. A release in that window added nothing (an add under an existing id is a
// no-op) and still took the submission out of the quarantine: released, never delivered. It must queue it.
let redis: Redis;
let queue: Queue;
const name = `judge-held-${randomUUID()}`;
const keys = opsKeys({ prefix: 'bull' }, name);

beforeAll(() => {
  redis = new Redis(inject('redisUrl'), { maxRetriesPerRequest: null });
  queue = new Queue(name, { connection: redis });
});
afterAll(async () => {
  await queue.obliterate({ force: true });
  await redis.del(keys.spamIndex, keys.spamData, keys.spamReasons, keys.spamModel, keys.audit);
  await queue.close();
  redis.disconnect();
});

it('a release while the judge-held job is still in the queue queues it again', async () => {
  const id = `sub_${randomUUID().replaceAll('-', '').slice(0, 26)}`;
  const payload = {
    v: 1,
    kind: 'contact',
    submissionId: id,
    recordId: 'con_x',
    acceptedAt: new Date().toISOString(),
    data: { email: 'held@acme.io', name: 'Held', message: 'hello' },
  };
  await queue.add('contact.v1', payload, { jobId: id });
  // The judge's verdict, as the worker completes a job it held (no listener removes it here).
  const worker = new Worker(name, async () => ({ held: true }), { connection: redis.duplicate() });
  await new Promise<void>((resolve) => worker.once('completed', () => resolve()));
  await worker.close();
  const hold = createQuarantine(redis, { prefix: 'bull' }, name, {
    maxAgeMs: 86_400_000,
    maxCount: 100,
    timeoutMs: 5_000,
  });
  await hold(payload as never, { reasons: [{ layer: 'rules', code: 'links', weight: 1 }] });

  const released = await releaseHeld({ redis, queue, keys, actor: 'test', warn: () => {} }, [id]);
  expect(released.released).toEqual([id]);
  const job = await queue.getJob(id);
  expect(await job?.getState()).toBe('waiting');
  expect(job?.returnvalue ?? null).toBeNull();
  expect(await redis.zscore(keys.spamIndex, id)).toBeNull();
});
