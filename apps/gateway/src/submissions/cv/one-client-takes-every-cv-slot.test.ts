import { randomUUID } from 'node:crypto';
import { request } from 'node:http';
import { setTimeout as sleep } from 'node:timers/promises';
import { afterAll, beforeAll, expect, inject, it } from 'vitest';
import { loadConfig } from '../../config.ts';
import { type RunningGateway, startGateway } from '../../start-gateway.ts';

// Issue 19, item 4: a CV slot was taken before any per-client check: one address could hold every slot,
// and a client the limit had already refused still took a slot (and was answered 503 when none was free)
// before its body was read and the limit looked at.
let gateway: RunningGateway;
beforeAll(async () => {
  gateway = await startGateway(
    loadConfig({
      PORT: '0',
      HOST: '127.0.0.1',
      REDIS_URL: inject('redisUrl'),
      QUEUE_NAME: `one-client-${randomUUID()}`,
      LOG_LEVEL: 'silent',
      CV_UPLOAD_SLOTS: '2',
      TRUST_PROXY: 'true',
      RATE_LIMIT_REQUESTS: '1',
    }),
  );
});
afterAll(() => gateway.stop());

const BIG = String(6 * 1024 * 1024);

/** A careers request announcing a 6 MiB body and sending only its first bytes: it holds a slot if it gets one. */
function heldUpload(address: string) {
  const req = request(`${gateway.url}/api/careers-apply`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', 'content-length': BIG, 'x-forwarded-for': address },
  });
  req.on('error', () => {});
  const answered = new Promise<number>((resolve) => req.on('response', (res) => resolve(res.statusCode ?? 0)));
  req.write('{"name":"N","email":"n@acme.io","role":"R","cvFile":{"data":"');
  return { req, answered };
}

function bigUpload(address: string) {
  return fetch(`${gateway.url}/api/careers-apply`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', 'content-length': BIG, 'x-forwarded-for': address },
    body: 'x'.repeat(6 * 1024 * 1024),
    signal: AbortSignal.timeout(5_000),
  });
}

it('one address holds one slot: its second upload is refused while another address gets the other slot', async () => {
  const first = heldUpload('203.0.113.9');
  try {
    await sleep(300);
    const second = await bigUpload('203.0.113.9');
    expect(second.status).toBe(503);
    expect(await second.json()).toMatchObject({ error: 'CV_UPLOADS_BUSY' });
    // The other slot is still free for someone else (a bad body, read and refused: it had its slot).
    const other = await bigUpload('198.51.100.9');
    expect(other.status).toBe(400);
  } finally {
    first.req.destroy();
  }
});

it('a client the limit already refused gets 429 before a slot is taken, even with every slot busy', async () => {
  const client = '203.0.113.10';
  const post = (body: object) =>
    fetch(`${gateway.url}/api/creator-signup`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', 'x-forwarded-for': client },
      body: JSON.stringify(body),
    });
  expect((await post({ email: 'one@acme.io' })).status).toBe(200);
  expect((await post({ email: 'two@acme.io' })).status).toBe(429); // refused, and remembered
  const held = [heldUpload('198.51.100.1'), heldUpload('198.51.100.2')];
  try {
    await sleep(300); // both slots taken
    const res = await bigUpload(client);
    expect(res.status).toBe(429);
    expect(Number(res.headers.get('retry-after'))).toBeGreaterThanOrEqual(1);
  } finally {
    for (const h of held) h.req.destroy();
  }
});
