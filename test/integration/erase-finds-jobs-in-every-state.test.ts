import { randomBytes } from 'node:crypto';
import { jobNameFor, toJobPayload } from '@forms/schemas';
import { createPostgresCrm, erasePerson } from '@forms/worker';
import { Redis } from 'ioredis';
import { afterAll, beforeAll, expect, inject, it } from 'vitest';
import { type Pipeline, startPipeline } from '../support/pipeline.ts';

// The states the end-to-end erase test does not reach with real traffic: delayed (a retry waiting its
// turn), prioritized (a replay), waiting. No worker runs, so every job stays where it was put.
let pipeline: Pipeline;
let redis: Redis;

beforeAll(async () => {
  pipeline = await startPipeline({}, { withWorker: false });
  redis = new Redis(inject('redisUrl'));
});
afterAll(async () => {
  redis?.disconnect();
  await pipeline?.stop();
});

it('finds and removes the person’s jobs whether waiting, delayed or prioritized, and nobody else’s', async () => {
  const { queue } = pipeline;
  const tag = randomBytes(4).toString('hex');
  const person = `every.${tag}@acme-privacy.io`;
  const other = `other.${tag}@acme-privacy.io`;
  const add = (email: string, id: string, opts: { delay?: number; priority?: number } = {}) =>
    queue.add(
      jobNameFor('contact'),
      toJobPayload('contact', { email }, { submissionId: id, recordId: id, acceptedAt: new Date().toISOString() }),
      { jobId: id, ...opts },
    );
  await add(person, `sub_wait${tag}`);
  await add(person, `sub_delay${tag}`, { delay: 3_600_000 });
  await add(person, `sub_prio${tag}`, { priority: 1_000 });
  await add(other, `sub_other${tag}`, { delay: 3_600_000 });

  const report = await erasePerson(
    {
      queue,
      redis,
      settings: { prefix: 'bull' },
      queueName: pipeline.env.QUEUE_NAME!,
      crm: createPostgresCrm(pipeline.db),
      storage: undefined,
      secret: randomBytes(32).toString('hex'),
      tombstoneDays: 1,
      actor: 'test',
    },
    person.toUpperCase(),
    { dryRun: false },
  );
  expect(report.jobs).toEqual({ waiting: 1, delayed: 1, prioritized: 1 });
  for (const id of [`sub_wait${tag}`, `sub_delay${tag}`, `sub_prio${tag}`])
    expect(await queue.getJob(id)).toBeUndefined();
  expect(await queue.getJobState(`sub_other${tag}`)).toBe('delayed');
});
