import { type LocalRedis, startRedisServer } from '@forms/local-services';
import { toJobPayload } from '@forms/schemas';
import type { Queue } from 'bullmq';
import { Redis } from 'ioredis';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createClaims } from './claim-submission.ts';
import { newId } from './ids.ts';
import { createEnqueue, createProducerRedis, createSubmissionQueue, type ProducerRedis } from './queue.ts';
import { submissionKeys } from './submission-keys.ts';

// Before writeAtEndOfTurn and scriptBatch, each claim and each add was its own socket write: on that code,
// 20 concurrent claims cost Redis 20 reads (and 20 script runs), and 20 concurrent adds 7. Redis counts its
// reads in INFO stats (`total_reads_processed`), so this test has a Redis of its own, where no one else reads.
let server: LocalRedis;
let redis: ProducerRedis;
let observer: Redis;
let queue: Queue;
const CONCURRENT = 20;

beforeAll(async () => {
  server = await startRedisServer();
  redis = createProducerRedis({ mode: 'single', url: server.url, prefix: 'bull' });
  observer = new Redis(server.url);
  queue = createSubmissionQueue('turns', redis, 'bull');
  await queue.waitUntilReady();
});
afterAll(async () => {
  await queue.close();
  redis.disconnect();
  observer.disconnect();
  await server.stop();
});

/** Reads Redis made while `work` ran, not counting the INFO that measures them. */
async function redisReadsDuring(work: () => Promise<unknown>): Promise<number> {
  const reads = async () => Number(/total_reads_processed:(\d+)/.exec(await observer.info('stats'))![1]);
  const before = await reads();
  await work();
  return (await reads()) - before - 1;
}

describe('commands made in one turn of the event loop leave in one socket write', () => {
  it(`${CONCURRENT} concurrent claims are one script call in one read, each answered as its own`, async () => {
    const claims = createClaims(redis, submissionKeys({ prefix: 'bull' }, 'turns'), 2_000);
    const emails = Array.from({ length: CONCURRENT }, (_, i) => `turn${i}@acme.io`);
    const claim = (email: string) =>
      claims.claim({
        submissionId: newId('sub'),
        acceptedAt: new Date().toISOString(),
        contact: { email, candidateId: newId('con'), ttlSeconds: 60 },
        rateLimit: { client: 'one-client', requests: CONCURRENT + 1, windowMs: 60_000 },
      });
    // Loads the script, so that what is counted below is the calls alone.
    await claim('warm-up@acme.io');
    let answers: Awaited<ReturnType<typeof claim>>[] = [];
    const scriptCalls = async () =>
      Number(/cmdstat_evalsha:calls=(\d+)/.exec(await observer.info('commandstats'))?.[1] ?? 0);
    const callsBefore = await scriptCalls();
    const reads = await redisReadsDuring(async () => {
      answers = await Promise.all(emails.map(claim));
    });
    // Before claims were batched, each was its own EVALSHA: 20 script runs for 20 claims.
    expect(await scriptCalls()).toBe(callsBefore + 1);
    expect(reads).toBe(1);
    expect(answers.map((c) => c.kind)).toEqual(emails.map(() => 'new'));
    expect(new Set(answers.map((c) => (c.kind === 'new' ? c.recordId : ''))).size).toBe(CONCURRENT);
    // The batch counts in order: the client's window had room for exactly one more.
    expect(await claim('one-too-many@acme.io')).toMatchObject({ kind: 'limited' });
  });

  it(`${CONCURRENT} concurrent adds reach Redis in a few reads, and every job is there`, async () => {
    const enqueue = createEnqueue(queue, redis, 2_000);
    const ids = Array.from({ length: CONCURRENT }, () => newId('sub'));
    const reads = await redisReadsDuring(() =>
      Promise.all(
        ids.map((submissionId) =>
          enqueue(
            toJobPayload(
              'contact',
              { email: `${submissionId}@acme.io` },
              { submissionId, recordId: submissionId, acceptedAt: new Date().toISOString() },
            ),
          ),
        ),
      ),
    );
    expect(reads).toBeGreaterThanOrEqual(1);
    expect(reads).toBeLessThanOrEqual(4);
    const jobs = await Promise.all(ids.map((id) => queue.getJob(id)));
    expect(jobs.map((job) => job?.id)).toEqual(ids);
  });
});
