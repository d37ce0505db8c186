import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, expect, inject, it } from 'vitest';
import { startTestGateway, type TestGateway } from '../support/test-gateway.ts';

// Issue 19, item 5: the body was read and parsed before the per-client limit was looked at, so a client
// over the limit sending `{not json` got 400, not the 429 docs/api.md#decisions-the-api-description-leaves-open promises
// "even when its body is bad".
// Two gateways on one queue (as behind nginx): the second has never refused this client itself, so only
// Redis knows it is over the limit.
let first: TestGateway;
let second: TestGateway;
beforeAll(async () => {
  const env = {
    TRUST_PROXY: 'true',
    RATE_LIMIT_REQUESTS: '3',
    RATE_LIMIT_WINDOW_SECONDS: '60',
    QUEUE_NAME: `ol-${randomUUID()}`,
  };
  first = await startTestGateway(inject('redisUrl'), env);
  second = await startTestGateway(inject('redisUrl'), env);
});
afterAll(async () => {
  await first?.stop();
  await second?.stop();
});

function post(gateway: TestGateway, path: string, body: string, client: string) {
  return fetch(`${gateway.url}${path}`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', 'x-forwarded-for': client },
    body,
  });
}

it('a client over the limit gets 429 for a bad body, on the gateway that refused it and on another', async () => {
  const client = '203.0.113.50';
  for (let i = 0; i < 3; i++)
    expect((await post(first, '/api/creator-signup', JSON.stringify({ email: `ol${i}@acme.io` }), client)).status).toBe(
      200,
    );
  // The window is full: the next is over the limit, whatever it sends, and wherever it lands.
  for (const [gateway, body] of [
    [second, '{not json'],
    [second, JSON.stringify({ email: 'not an email' })],
    [second, '['.repeat(40)],
    [first, '{not json'],
    [first, JSON.stringify({ email: 'ol4@acme.io' })],
    [first, '{not json'],
  ] as const) {
    const res = await post(gateway, '/api/contact', body, client);
    expect(res.status, body).toBe(429);
    expect(Number(res.headers.get('retry-after'))).toBeGreaterThanOrEqual(1);
  }
  // A careers body too, before a CV slot is taken.
  const careers = await post(second, '/api/careers-apply', '{not json', client);
  expect(careers.status).toBe(429);
  // Another client's bad body is still the 400 that names the fault.
  const other = await post(second, '/api/contact', '{not json', '198.51.100.50');
  expect(other.status).toBe(400);
  expect(await other.json()).toMatchObject({ code: 'INVALID_JSON' });
});
