import { randomUUID } from 'node:crypto';
import { SUBMISSION_ENDPOINTS } from '@forms/schemas';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { startTestGateway, type TestGateway } from '../support/test-gateway.ts';
import { validBody } from '../support/valid-bodies.ts';

let gateway: TestGateway;

beforeAll(async () => {
  gateway = await startTestGateway(inject('redisUrl'));
});
afterAll(() => gateway?.stop());

async function send(path: string, method: string, body: unknown, key?: string) {
  const res = await fetch(gateway.url + path, {
    method,
    headers: { 'content-type': 'application/json', ...(key === undefined ? {} : { 'idempotency-key': key }) },
    body: JSON.stringify(body),
  });
  return { status: res.status, body: await res.json() };
}
const jobCount = () => gateway.queue.getWaitingCount();

describe('Idempotency-Key', () => {
  it.each(SUBMISSION_ENDPOINTS.map((e) => [e.kind, e] as const))(
    '%s: the same key and body answer the first answer and queue nothing more',
    async (kind, endpoint) => {
      const key = randomUUID();
      const body = validBody(kind, `idem-${key}`);
      const before = await jobCount();
      const first = await send(endpoint.path, endpoint.method, body, key);
      expect(first.status).toBe(200);
      const again = await send(endpoint.path, endpoint.method, body, key);
      const third = await send(endpoint.path, endpoint.method, body, key);
      expect(again).toEqual(first);
      expect(third).toEqual(first);
      expect(await jobCount()).toBe(before + 1);
    },
  );

  it('a retry differing only in whitespace, key order, email case or an unknown field is the same submission', async () => {
    const key = randomUUID();
    const first = await send('/api/contact', 'POST', { email: 'same@acme.io', name: 'Ada' }, key);
    const retry = await send('/api/contact', 'POST', { name: ' Ada ', email: 'SAME@acme.io', extra: 1 }, key);
    expect(retry).toEqual(first);
  });

  it('the same key with another body, or on another endpoint, is 409 IDEMPOTENCY_KEY_REUSED and queues nothing', async () => {
    const key = randomUUID();
    expect((await send('/api/contact', 'POST', { email: 'one@acme.io' }, key)).status).toBe(200);
    const before = await jobCount();
    const other = await send('/api/contact', 'POST', { email: 'two@acme.io' }, key);
    expect(other.status).toBe(409);
    expect(other.body).toMatchObject({ code: 'IDEMPOTENCY_KEY_REUSED', error: 'idempotency_key_reused' });
    const elsewhere = await send('/api/creator-signup', 'POST', { email: 'one@acme.io', name: 'One' }, key);
    expect(elsewhere.body.code).toBe('IDEMPOTENCY_KEY_REUSED');
    expect(await jobCount()).toBe(before);
  });

  it('a key that is not 1–255 printable ASCII characters is 400 INVALID_IDEMPOTENCY_KEY, before anything is claimed', async () => {
    const before = await jobCount();
    for (const key of ['', 'x'.repeat(256), 'tab\there', 'caf\u00e9']) {
      const res = await send('/api/contact', 'POST', { email: `bad-key-${randomUUID()}@acme.io` }, key);
      expect({ key, status: res.status, code: res.body.code }).toEqual({
        key,
        status: 400,
        code: 'INVALID_IDEMPOTENCY_KEY',
      });
    }
    expect((await send('/api/contact', 'POST', { email: 'edge@acme.io' }, 'x'.repeat(255))).status).toBe(200);
    expect((await send('/api/contact', 'POST', { email: 'edge2@acme.io' }, ' ~')).status).toBe(200);
    expect(await jobCount()).toBe(before + 2);
  });

  it('a contact-update retried with its key still answers updated: false (the first answer), not true', async () => {
    const key = randomUUID();
    const body = { email: `fresh-${key}@acme.io`, name: 'Fresh' };
    const first = await send('/api/contact-update', 'PATCH', body, key);
    expect(first.body.updated).toBe(false);
    expect((await send('/api/contact-update', 'PATCH', body, key)).body).toEqual(first.body);
    // Without the key a second submission is a new one, for a known email.
    expect((await send('/api/contact-update', 'PATCH', body)).body).toMatchObject({
      updated: true,
      recordId: first.body.recordId,
    });
  });

  it('a retry whose first request got its job in but not its answer adds nothing (BullMQ ignores a known job id)', async () => {
    const key = randomUUID();
    const body = { email: `lost-answer-${key}@acme.io`, name: 'Lost' };
    const first = await send('/api/contact', 'POST', body, key);
    const before = await jobCount();
    // As if the gateway had died between Redis confirming the job and marking the key done.
    const records = await gateway.redis.keys(`bull:${gateway.queueName}:idem:*`);
    expect(records.length).toBeGreaterThan(0);
    for (const name of records) expect(await gateway.redis.hget(name, 'd')).toBe('1'); // marked done after the add
    for (const name of records) await gateway.redis.hset(name, 'd', '0');
    expect(await send('/api/contact', 'POST', body, key)).toEqual(first);
    expect(await jobCount()).toBe(before);
  });

  it("keys sit beside the queue's own (its prefix, hash-tagged on a cluster) and carry no email or idempotency key; idempotency records expire in 24 h, contacts later", async () => {
    const key = `visible-key-${randomUUID()}`;
    const email = `visible-${randomUUID()}@acme.io`;
    await send('/api/contact', 'POST', { email }, key);
    const ours = (await gateway.redis.keys(`bull:${gateway.queueName}:*`))
      .sort()
      .filter((n) => /:(contact|idem|rate):/.test(n));
    expect(ours.length).toBeGreaterThan(0);
    for (const name of ours) {
      expect(name).toMatch(new RegExp(`^bull:${gateway.queueName}:(contact|idem|rate):[0-9a-f]{32}$`));
      expect(name).not.toContain(email);
      expect(name).not.toContain(key);
    }
    const idem = ours.filter((n) => n.includes(':idem:'));
    const contacts = ours.filter((n) => n.includes(':contact:'));
    for (const name of idem) expect(await gateway.redis.ttl(name)).toBeGreaterThan(24 * 3600 - 60);
    for (const name of contacts) expect(await gateway.redis.ttl(name)).toBeGreaterThan(399 * 86_400);
  });
});
