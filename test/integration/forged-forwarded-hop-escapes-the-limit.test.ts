import { afterAll, beforeAll, expect, inject, it } from 'vitest';
import { startTestGateway, type TestGateway } from '../support/test-gateway.ts';

// Issue 19, item 2: behind the shipped nginx (`proxy_add_x_forwarded_for` appends the address it saw), a
// client that sends its own first X-Forwarded-For hop escaped the per-client limit: Koa took the leftmost
// address. With TRUST_PROXY=true (one trusted hop) or a hop count, the address is the one the trusted
// proxies saw: the rightmost, or as many from the right as there are trusted hops.
let oneHop: TestGateway;
let twoHops: TestGateway;
const limit = { RATE_LIMIT_REQUESTS: '5', RATE_LIMIT_WINDOW_SECONDS: '60' };
beforeAll(async () => {
  oneHop = await startTestGateway(inject('redisUrl'), { TRUST_PROXY: 'true', ...limit });
  twoHops = await startTestGateway(inject('redisUrl'), { TRUST_PROXY: '2', ...limit });
});
afterAll(async () => {
  await oneHop?.stop();
  await twoHops?.stop();
});

function send(gateway: TestGateway, forwardedFor: string, i: number) {
  return fetch(`${gateway.url}/api/creator-signup`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', 'x-forwarded-for': forwardedFor },
    body: JSON.stringify({ email: `hop${i}@acme.io`, name: 'H' }),
  });
}

it('a forged first hop does not make a new client: the sixth of twelve is 429', async () => {
  const statuses: number[] = [];
  // What nginx forwards: the client's own header, then the address nginx saw.
  for (let n = 0; n < 12; n++) statuses.push((await send(oneHop, `203.0.113.${n}, 198.51.100.7`, n)).status);
  expect(statuses).toEqual([...Array(5).fill(200), ...Array(7).fill(429)]);
});

it('with two trusted hops (CDN, then nginx), the address the first trusted proxy saw is the client', async () => {
  const statuses: number[] = [];
  for (let n = 0; n < 7; n++)
    statuses.push((await send(twoHops, `203.0.113.${n}, 198.51.100.8, 10.0.0.1`, 100 + n)).status);
  expect(statuses).toEqual([...Array(5).fill(200), ...Array(2).fill(429)]);
  // Another client behind the same CDN node is not held back.
  expect((await send(twoHops, '198.51.100.9, 10.0.0.1', 200)).status).toBe(200);
});
