import { randomUUID } from 'node:crypto';
import { HONEYPOT_FIELD, SUBMISSION_ENDPOINTS } from '@forms/schemas';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { startTestGateway, type TestGateway } from '../support/test-gateway.ts';

let gateway: TestGateway;

beforeAll(async () => {
  gateway = await startTestGateway(inject('redisUrl'), {
    TRUST_PROXY: 'true',
    RATE_LIMIT_REQUESTS: '3',
    RATE_LIMIT_WINDOW_SECONDS: '30',
  });
});
afterAll(() => gateway.stop());

function send(path: string, body: unknown, client: string, method = 'POST') {
  return fetch(gateway.url + path, {
    method,
    headers: { 'content-type': 'application/json', 'x-forwarded-for': client },
    body: JSON.stringify(body),
  });
}

describe('per-client rate limit', () => {
  it('answers 429 RATE_LIMITED with Retry-After past the limit, queues nothing for it, and limits only that client', async () => {
    const before = await gateway.queue.getWaitingCount();
    const statuses = [];
    for (let i = 0; i < 3; i++)
      statuses.push((await send('/api/contact', { email: `rl${i}@acme.io` }, '203.0.113.7')).status);
    expect(statuses).toEqual([200, 200, 200]);
    const refused = await send('/api/creator-signup', { email: 'rl4@acme.io', name: 'R' }, '203.0.113.7');
    expect(refused.status).toBe(429);
    const retryAfter = Number(refused.headers.get('retry-after'));
    expect(retryAfter).toBeGreaterThanOrEqual(1);
    expect(retryAfter).toBeLessThanOrEqual(30);
    expect(await refused.json()).toMatchObject({ code: 'RATE_LIMITED', error: 'rate_limited' });
    expect(gateway.counters.rateLimited).toBe(1);
    expect(await gateway.queue.getWaitingCount()).toBe(before + 3);
    // Another client is not held back by the first.
    expect((await send('/api/contact', { email: 'other@acme.io' }, '198.51.100.1')).status).toBe(200);
    // The limiter's keys carry a hash of the address, never the address.
    const keys = await gateway.redis.keys(`bull:${gateway.queueName}:rate:*`);
    expect(keys.length).toBe(2);
    for (const key of keys) expect(key).not.toContain('203.0.113.7');
  });

  it('a client over its limit is refused at once, whatever it sends, until its window ends', async () => {
    const res = await send('/api/contact', { email: 'nope' }, '203.0.113.7');
    expect(res.status).toBe(429);
    expect(gateway.counters.rateLimited).toBe(2);
  });
});

describe('honeypot field', () => {
  it(`"${HONEYPOT_FIELD}" filled: answered exactly like a success, kept out of the queue, counted`, async () => {
    const endpoints = SUBMISSION_ENDPOINTS.filter((e) => e.kind === 'contact' || e.kind === 'creator-signup');
    for (const [i, endpoint] of endpoints.entries()) {
      // Two addresses of its own per endpoint: no client comes near the limit of 3.
      const client = `192.0.2.${10 + i}`;
      const email = `person-${randomUUID()}@acme.io`;
      const body = { email, name: 'N' };
      const real = await (await send(endpoint.path, body, client, endpoint.method)).json();
      const before = await gateway.queue.getWaitingCount();
      const dropped = gateway.counters.honeypotQuarantined;
      const trapped = await send(
        endpoint.path,
        { ...body, email: `bot-${randomUUID()}@acme.io`, [HONEYPOT_FIELD]: 'http://spam.example' },
        `192.0.2.${110 + i}`,
        endpoint.method,
      );
      expect(trapped.status).toBe(200);
      const answer = await trapped.json();
      // Same fields, same types, same message: nothing tells the bot it was caught.
      expect(Object.keys(answer).sort()).toEqual(Object.keys(real).sort());
      expect(answer.message).toBe(real.message);
      expect(answer.recordId).toMatch(endpoint.contact ? /^con_[0-9a-z]{26}$/ : /^sub_[0-9a-z]{26}$/);
      expect(await gateway.queue.getWaitingCount()).toBe(before);
      expect(gateway.counters.honeypotQuarantined).toBe(dropped + 1);
    }
  });

  it('left empty (as a person sends it), it is ignored and never reaches the job', async () => {
    const email = `empty-${randomUUID()}@acme.io`;
    const res = await send('/api/contact', { email, name: 'Pat', [HONEYPOT_FIELD]: '  ' }, '192.0.2.200');
    expect(res.status).toBe(200);
    const jobs = await gateway.queue.getJobs(['waiting']);
    const job = jobs.find((j) => j.data.data.email === email);
    expect(job?.data.data).toEqual({ email, name: 'Pat' });
  });
});
