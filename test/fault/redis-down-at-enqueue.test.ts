import { randomUUID } from 'node:crypto';
import { loadConfig, type RunningGateway, startGateway } from '@forms/gateway';
import { type LocalRedis, startRedisServer } from '@forms/local-services';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { eventually } from '../support/wait.ts';

// This test stops and restarts its own redis-server, so it never touches the shared test Redis.
let redis: LocalRedis;
let gateway: RunningGateway;

// A short hold, so an outage longer than it is quick to drive; the bound small enough to reach.
const HOLD_MS = 1_500;
const MAX_HELD = 8;
// Room for two partner-webinar payloads with 1,500 characters of questions, not three.
const MAX_HELD_BYTES = 4_000;
const ADMIN_TOKEN = 'down-at-enqueue-admin-token';

/** A gateway on this test's Redis, its metrics behind ADMIN_TOKEN, with `env` on top of the defaults. */
function gatewayOn(queue: string, env: Record<string, string> = {}): Promise<RunningGateway> {
  return startGateway(
    loadConfig({
      PORT: '0',
      HOST: '127.0.0.1',
      REDIS_URL: redis.url,
      QUEUE_NAME: `${queue}-${randomUUID()}`,
      LOG_LEVEL: 'silent',
      RATE_LIMIT_REQUESTS: '0',
      ADMIN_TOKEN,
      ...env,
    }),
  );
}

beforeAll(async () => {
  redis = await startRedisServer();
  gateway = await gatewayOn('down', {
    REDIS_HOLD_MS: String(HOLD_MS),
    REDIS_HOLD_MAX_REQUESTS: String(MAX_HELD),
    REDIS_HOLD_MAX_BYTES: String(MAX_HELD_BYTES),
  });
});
afterAll(async () => {
  await gateway?.stop();
  await redis?.stop();
});

function submit(path = '/api/contact', body: object = { email: `${randomUUID()}@acme.io` }, url = gateway.url) {
  return fetch(`${url}${path}`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify(body),
  });
}

/** A creator-signup: no claim before its add (not a contact kind, no key, no limit), so only its add is held. */
const creator = (url = gateway.url) =>
  submit('/api/creator-signup', { email: `${randomUUID()}@creators.example`, name: 'Cleo' }, url);
/** A partner-webinar whose payload is about 1,700 bytes. */
const webinar = () =>
  submit('/api/partner-webinar', {
    fullName: 'Katherine Johnson',
    workEmail: `${randomUUID()}@acme.io`,
    questions: 'q'.repeat(1_500),
  });

/** The gateway's held-submission gauges, as /admin/metrics shows them. */
async function heldNow(url = gateway.url): Promise<{ requests: number; bytes: number }> {
  const text = await (
    await fetch(`${url}/admin/metrics`, { headers: { authorization: `Bearer ${ADMIN_TOKEN}` } })
  ).text();
  const read = (name: string) => Number(new RegExp(`^${name}(?:\\{[^}]*\\})? (\\d+)`, 'm').exec(text)?.[1] ?? NaN);
  return { requests: read('forms_submissions_held'), bytes: read('forms_submissions_held_bytes') };
}

/** Sends `n` at once, sampling the gauges until every one is answered: statuses, times, the largest held. */
async function burst(n: number, send: () => Promise<Response>) {
  let answered = 0;
  const peak = { requests: 0, bytes: 0 };
  const answers = Promise.all(
    Array.from({ length: n }, async () => {
      const started = performance.now();
      const res = await send();
      await res.arrayBuffer();
      answered++;
      return { status: res.status, retryAfter: res.headers.get('retry-after'), ms: performance.now() - started };
    }),
  );
  while (answered < n) {
    const now = await heldNow();
    peak.requests = Math.max(peak.requests, now.requests);
    peak.bytes = Math.max(peak.bytes, now.bytes);
  }
  return { answers: await answers, peak };
}

describe('Redis down at enqueue, longer than the hold', () => {
  it('holds a submission for REDIS_HOLD_MS, then answers 503 QUEUE_UNAVAILABLE with Retry-After, and recovers without a restart', async () => {
    expect((await submit()).status).toBe(200);

    await redis.stop();
    for (let i = 0; i < 3; i++) {
      const started = performance.now();
      const res = await submit();
      const elapsed = performance.now() - started;
      expect(res.status).toBe(503);
      expect(res.headers.get('retry-after')).toBe('5');
      expect(await res.json()).toMatchObject({ code: 'QUEUE_UNAVAILABLE', error: 'queue_unavailable' });
      // Held the whole hold (the outage outlasted it), answered within it plus a second.
      expect(elapsed).toBeGreaterThanOrEqual(HOLD_MS - 50);
      expect(elapsed).toBeLessThan(HOLD_MS + 1_000);
    }
    expect((await fetch(`${gateway.url}/readyz`)).status).toBe(503);
    expect((await fetch(`${gateway.url}/healthz`)).status).toBe(200);

    redis = await startRedisServer({ port: redis.port });
    await eventually(async () => (await submit()).status === 200, {
      timeoutMs: 10_000,
      everyMs: 200,
      explain: () => 'submissions never answered 200 again after Redis came back',
    });
    expect((await fetch(`${gateway.url}/readyz`)).status).toBe(200);
  });

  it('holds at most REDIS_HOLD_MAX_REQUESTS at once: past them a new submission is answered 503 at once', async () => {
    await redis.stop();
    try {
      const { answers, peak } = await burst(30, creator);
      console.log(`[hold] 30 at once, bound ${MAX_HELD}: peak held ${JSON.stringify(peak)}`);
      expect(answers.map((a) => [a.status, a.retryAfter])).toEqual(answers.map(() => [503, '5']));
      const held = answers.filter((a) => a.ms >= HOLD_MS - 50);
      expect(held.length).toBe(MAX_HELD);
      // The rest were refused at once rather than held: well under the hold.
      expect(answers.filter((a) => a.ms < HOLD_MS / 2).length).toBe(30 - MAX_HELD);
      expect(peak.requests).toBe(MAX_HELD);
      expect(await heldNow()).toEqual({ requests: 0, bytes: 0 });
    } finally {
      redis = await startRedisServer({ port: redis.port });
    }
  });

  it('holds at most REDIS_HOLD_MAX_BYTES at once: past them a new submission is answered 503 at once', async () => {
    await redis.stop();
    try {
      const { answers, peak } = await burst(6, webinar);
      console.log(`[hold] 6 large at once, bound ${MAX_HELD_BYTES} bytes: peak held ${JSON.stringify(peak)}`);
      expect(answers.map((a) => a.status)).toEqual(answers.map(() => 503));
      expect(answers.filter((a) => a.ms >= HOLD_MS - 50).length).toBe(2);
      expect(peak.bytes).toBeLessThanOrEqual(MAX_HELD_BYTES);
      expect(peak.requests).toBe(2);
    } finally {
      redis = await startRedisServer({ port: redis.port });
    }
  });
});

describe('Redis paused (SIGSTOP) for less than the hold', () => {
  // A gateway of its own with the default hold: the add meets its deadline (ENQUEUE_TIMEOUT_MS) before it
  // is held, and a loaded machine may see the hold begin late, so the short hold above would leave no room
  // to resume Redis inside it. Redis is resumed as soon as the request is seen held: the test takes no longer.
  const ENQUEUE_TIMEOUT_MS = 1_000;
  const DEFAULT_HOLD_MS = 10_000;
  it('holds the submission and answers 200 once Redis resumes', async () => {
    const own = await gatewayOn('down-pause', { ENQUEUE_TIMEOUT_MS: String(ENQUEUE_TIMEOUT_MS) });
    const send = () => creator(own.url);
    try {
      await eventually(async () => (await send()).status === 200, {
        timeoutMs: 10_000,
        everyMs: 200,
        explain: () => 'the gateway never answered 200 before the pause',
      });
      redis.process.kill('SIGSTOP');
      let resumed = false;
      try {
        const started = performance.now();
        const answer = send();
        // Resumed once the gateway says it holds the request: the pause did reach it. It is held from its
        // add's deadline for the hold's length.
        await eventually(async () => (await heldNow(own.url)).requests === 1, {
          timeoutMs: ENQUEUE_TIMEOUT_MS + DEFAULT_HOLD_MS,
          everyMs: 20,
          explain: () => 'the gateway never held the request while Redis was paused',
        });
        redis.process.kill('SIGCONT');
        resumed = true;
        const res = await answer;
        expect(res.status).toBe(200);
        expect(performance.now() - started).toBeLessThan(ENQUEUE_TIMEOUT_MS + DEFAULT_HOLD_MS + 1_000);
      } finally {
        if (!resumed) redis.process.kill('SIGCONT');
      }
    } finally {
      await own.stop();
    }
  });
});

describe('a gateway stopped while it holds submissions', () => {
  it('answers what it holds with 503 and Retry-After at once, and stops without waiting out the hold', async () => {
    const holding = await gatewayOn('down-stop', { REDIS_HOLD_MS: '30000' });
    let stopped = false;
    await redis.stop();
    try {
      const held = Array.from({ length: 3 }, async () => {
        const res = await creator(holding.url);
        return { res, at: performance.now() };
      });
      // Stopped once the gateway says it holds all three.
      await eventually(async () => (await heldNow(holding.url)).requests === 3, {
        timeoutMs: 10_000,
        everyMs: 20,
        explain: () => 'the gateway never held the three submissions',
      });
      const stopping = performance.now();
      await holding.stop();
      stopped = true;
      const stopMs = performance.now() - stopping;
      const answers = await Promise.all(held);
      expect(answers.map(({ res }) => [res.status, res.headers.get('retry-after')])).toEqual([
        [503, '5'],
        [503, '5'],
        [503, '5'],
      ]);
      // Answered as the stop began, not at the end of their 30 s hold; the stop (closing the queue's
      // connection to a Redis that is away takes a few seconds of its own) well under the hold too.
      expect(Math.max(...answers.map(({ at }) => at - stopping))).toBeLessThan(1_000);
      expect(stopMs).toBeLessThan(10_000);
    } finally {
      if (!stopped) await holding.stop();
      redis = await startRedisServer({ port: redis.port });
    }
  });
});
