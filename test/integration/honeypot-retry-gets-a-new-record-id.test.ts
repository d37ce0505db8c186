import { randomUUID } from 'node:crypto';
import { HONEYPOT_FIELD } from '@forms/schemas';
import { afterAll, beforeAll, expect, inject, it } from 'vitest';
import { sendJson } from '../support/http.ts';
import { startTestGateway, type TestGateway } from '../support/test-gateway.ts';

// Issue 19's leftover: the honeypot was detectable. A client retrying with the same Idempotency-Key gets
// the first answer back on a real submission, but on a honeypotted one it got fresh ids each time, so a
// bot could send each body twice and learn which were caught. A quarantined submission now gets a real
// submission id, claimed with the key like any other.
let gateway: TestGateway;

beforeAll(async () => {
  gateway = await startTestGateway(inject('redisUrl'));
});
afterAll(() => gateway.stop());

async function send(path: string, body: unknown, key: string): Promise<{ recordId: string }> {
  const answer = await sendJson(gateway.url + path, body, 'POST', { 'idempotency-key': key });
  expect(answer.status).toBe(200);
  return answer.body;
}

it.each([
  ['/api/contact', 'contact'],
  ['/api/creator-signup', 'creator-signup'],
])('%s: the same Idempotency-Key on a honeypotted body answers the same recordId, as on a real one', async (path) => {
  const body = { email: `pot-${randomUUID()}@acme.io`, name: 'N' };
  const realKey = randomUUID();
  const real = [await send(path, body, realKey), await send(path, body, realKey)];
  expect(real[1]!.recordId).toBe(real[0]!.recordId);

  const trapped = { ...body, email: `bot-${randomUUID()}@acme.io`, [HONEYPOT_FIELD]: 'http://spam.example' };
  const trapKey = randomUUID();
  const first = await send(path, trapped, trapKey);
  const retry = await send(path, trapped, trapKey);
  expect(retry.recordId).toBe(first.recordId);
});
