import { randomUUID } from 'node:crypto';
import { loadConfig, type RunningGateway, startGateway } from '@forms/gateway';
import { type LocalRedis, startRedisServer } from '@forms/local-services';
import { Queue } from 'bullmq';
import { Redis } from 'ioredis';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { sleep } from '../support/wait.ts';

// CLIENT PAUSE stops every client of a server: this test has a redis-server of its own.
const queueName = `paused-${randomUUID()}`;
// All load comes from 127.0.0.1, one client: the per-client limit is for the open internet, not this test.
const ONE_CLIENT = { RATE_LIMIT_REQUESTS: '0' };
/** The load's shape: PAUSE_AFTER_MS in, Redis takes no writes for PAUSE_MS; lanes send SEND_INTO_PAUSE_MS into it. */
const PAUSE_AFTER_MS = 300;
const PAUSE_MS = 1_500;
const SEND_INTO_PAUSE_MS = 900;
/** Waited after the lanes end (SEND_INTO_PAUSE_MS into the pause at the least): past its end, 400 ms to spare. */
const AFTER_LOAD_MS = PAUSE_MS - SEND_INTO_PAUSE_MS + 400;
let server: LocalRedis;
let gateway: RunningGateway;
let redis: Redis;
let queue: Queue;

beforeAll(async () => {
  server = await startRedisServer();
  gateway = await startGateway(
    loadConfig({
      PORT: '0',
      HOST: '127.0.0.1',
      REDIS_URL: server.url,
      QUEUE_NAME: queueName,
      LOG_LEVEL: 'silent',
      // What a pause longer than the hold does: the gateway's hold off, so every step's deadline is the 503
      // at once, and the clients' keyed retries are what is proven (a pause within the hold is answered 200:
      // redis-down-at-enqueue.test.ts).
      REDIS_HOLD_MS: '0',
      ...ONE_CLIENT,
    }),
  );
  redis = new Redis(server.url, { maxRetriesPerRequest: null });
  queue = new Queue(queueName, { connection: redis });
});
afterAll(async () => {
  await gateway?.stop();
  await queue?.close();
  redis?.disconnect();
  await server?.stop();
});

type Submission = { key: string; path: string; body: Record<string, string> };
type Answer = { status: number; ms: number; retryAfter: string | null; body: Record<string, unknown> };

async function submit({ key, path, body }: Submission): Promise<Answer> {
  const started = performance.now();
  const res = await fetch(gateway.url + path, {
    method: 'POST',
    headers: { 'content-type': 'application/json', 'idempotency-key': key },
    body: JSON.stringify(body),
  });
  return {
    status: res.status,
    ms: performance.now() - started,
    retryAfter: res.headers.get('retry-after'),
    body: await res.json(),
  };
}

describe('Redis paused (CLIENT PAUSE WRITE) mid-stream, clients retrying with their Idempotency-Key', () => {
  it('answers 503 within the deadline, and the retries leave exactly one job per key', async () => {
    // 20 lanes send new submissions back to back; 300 ms in, Redis stops taking writes for 1.5 s, and the
    // lanes go on for 900 ms of it, so requests surely meet the pause (before, the lanes stopped at a fixed
    // 1.2 s, and a loaded machine slow to send the pause could leave none in it). Requests then sit at every
    // step: the rate-limit check, the claim, the add.
    const first = new Map<string, { submission: Submission; answer: Answer }>();
    let n = 0;
    let pausedAt: number | undefined;
    const lanes = Array.from({ length: 20 }, async () => {
      while (pausedAt === undefined || performance.now() < pausedAt + SEND_INTO_PAUSE_MS) {
        const i = n++;
        const submission: Submission =
          i % 2 === 0
            ? { key: randomUUID(), path: '/api/contact', body: { email: `p${i}@acme.io`, name: `P ${i}` } }
            : { key: randomUUID(), path: '/api/creator-signup', body: { email: `c${i}@acme.io`, name: `C ${i}` } };
        first.set(submission.key, { submission, answer: await submit(submission) });
      }
    });
    await sleep(PAUSE_AFTER_MS);
    const admin = new Redis(server.url);
    await admin.call('CLIENT', 'PAUSE', String(PAUSE_MS), 'WRITE');
    pausedAt = performance.now();
    await Promise.all(lanes);
    admin.disconnect();

    const answers = [...first.values()].map((f) => f.answer);
    const refused = [...first.values()].filter((f) => f.answer.status !== 200);
    expect(refused.length).toBeGreaterThan(0);
    for (const { answer } of refused) {
      expect(answer).toMatchObject({ status: 503, retryAfter: '5', body: { code: 'QUEUE_UNAVAILABLE' } });
    }
    // Bounded: a request waits at most one deadline per Redis step it reaches (ENQUEUE_TIMEOUT_MS = 1 s).
    expect(Math.max(...answers.map((a) => a.ms))).toBeLessThan(2_300);
    expect(Math.max(...refused.map((f) => f.answer.ms))).toBeGreaterThan(900);

    // Wait out the pause; some refused submissions' jobs have landed by now (their add was queued behind
    // the pause), others were claimed but never added.
    await sleep(AFTER_LOAD_MS);
    const landedBeforeRetry = (await queue.getJobs(['waiting'])).length;

    // Every client retries its refused submission with the same key and body, a few times at most.
    for (const entry of refused) {
      let answer = entry.answer;
      for (let attempt = 0; attempt < 5 && answer.status !== 200; attempt++) answer = await submit(entry.submission);
      expect(answer.status).toBe(200);
      entry.answer = answer;
    }
    // And any answered submission retried once more changes nothing.
    for (const { submission, answer } of [...first.values()].slice(0, 20)) {
      expect((await submit(submission)).body).toEqual(answer.body);
    }

    const jobs = await queue.getJobs(['waiting']);
    const emails = jobs.map((j) => j.data.data.email as string).sort();
    const sent = [...first.values()].map((f) => f.submission.body.email!).sort();
    expect(emails).toEqual(sent); // exactly one job per key: none lost, none doubled
    for (const { answer } of first.values()) {
      if ('recordId' in answer.body) {
        expect(jobs.some((j) => j.data.recordId === answer.body.recordId)).toBe(true);
      }
    }
    console.log(
      `${first.size} submissions, ${refused.length} answered 503 during the pause; ${landedBeforeRetry - (first.size - refused.length)} of those had landed anyway, the rest were added by their retry`,
    );
  }, 30_000);
});
