import { randomUUID } from 'node:crypto';
import { request } from 'node:http';
import { setTimeout as sleep } from 'node:timers/promises';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { loadConfig } from '../../config.ts';
import { type RunningGateway, startGateway } from '../../start-gateway.ts';

let gateway: RunningGateway;
beforeAll(async () => {
  gateway = await startGateway(
    loadConfig({
      PORT: '0',
      HOST: '127.0.0.1',
      REDIS_URL: inject('redisUrl'),
      QUEUE_NAME: `slots-${randomUUID()}`,
      LOG_LEVEL: 'silent',
      CV_UPLOAD_SLOTS: '2',
      // Each upload from an address of its own: one address holds one slot at most.
      TRUST_PROXY: 'true',
    }),
  );
});
afterAll(() => gateway.stop());

/** A careers request announcing a 6 MiB body and sending only its first bytes: it holds its slot. */
function heldUpload(address: string) {
  const req = request(`${gateway.url}/api/careers-apply`, {
    method: 'POST',
    headers: {
      'content-type': 'application/json',
      'content-length': String(6 * 1024 * 1024),
      'x-forwarded-for': address,
    },
  });
  req.on('error', () => {});
  req.write(
    '{"name":"N","email":"n@acme.io","role":"R","cvFile":{"filename":"cv.pdf","contentType":"application/pdf","data":"',
  );
  return req;
}

describe('concurrent CV uploads', () => {
  it('past the slots, a careers request is answered 503 CV_UPLOADS_BUSY with Retry-After before its body is read', async () => {
    const held = [heldUpload('203.0.113.1'), heldUpload('203.0.113.2')];
    try {
      await sleep(300); // both reach the gateway and take their slots
      // Without the slots, this request would wait for its 6 MiB like the others (the signal fails the test).
      const third = await fetch(`${gateway.url}/api/careers-apply`, {
        method: 'POST',
        headers: {
          'content-type': 'application/json',
          'content-length': String(6 * 1024 * 1024),
          'x-forwarded-for': '203.0.113.3',
        },
        body: 'x'.repeat(6 * 1024 * 1024),
        signal: AbortSignal.timeout(5_000),
      });
      expect(third.status).toBe(503);
      expect(third.headers.get('retry-after')).toBe('2');
      expect(await third.json()).toEqual({ error: 'CV_UPLOADS_BUSY', message: expect.stringContaining('Retry-After') });

      // An application without a CV is small and never waits for a slot.
      const small = await fetch(`${gateway.url}/api/careers-apply`, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify({ name: 'N', email: 'n@acme.io', role: 'R' }),
        signal: AbortSignal.timeout(5_000),
      });
      expect(small.status).toBe(200);
    } finally {
      for (const req of held) req.destroy();
    }
  });
});
