import { afterAll, beforeAll, expect, inject, it } from 'vitest';
import { startTestGateway, type TestGateway } from '../support/test-gateway.ts';

// Issue 19, item 6: behind a TLS-terminating proxy without TRUST_PROXY, the gateway sees plain HTTP, so
// "our origin" was built as http://host, and Bull Board's own same-origin writes from https://host (the
// page the operator has open) were refused 403 as cross-site.
const TOKEN = 'admin-token-for-tests-0123456789';
const basic = { authorization: `Basic ${Buffer.from(`ops:${TOKEN}`).toString('base64')}` };
let gateway: TestGateway;
let host: string;
beforeAll(async () => {
  gateway = await startTestGateway(inject('redisUrl'), { ADMIN_TOKEN: TOKEN, BULL_BOARD_WRITES: 'true' });
  host = new URL(gateway.url).host;
});
afterAll(() => gateway?.stop());

function retryFailed(headers: Record<string, string>) {
  return fetch(`${gateway.url}/admin/queues/api/queues/${gateway.queueName}/retry/failed`, {
    method: 'PUT',
    headers: { ...basic, ...headers },
  });
}

it('a write from the board itself, served over https by the proxy, goes through', async () => {
  const res = await retryFailed({ origin: `https://${host}`, 'sec-fetch-site': 'same-origin' });
  expect(res.status).toBe(200);
});

it('…while other origins are still refused, on either scheme', async () => {
  for (const origin of ['https://evil.example', `https://${host}.evil.example`, 'https://127.0.0.2', 'null']) {
    expect((await retryFailed({ origin })).status, origin).toBe(403);
  }
  expect((await retryFailed({ origin: `https://${host}`, 'sec-fetch-site': 'cross-site' })).status).toBe(403);
});
