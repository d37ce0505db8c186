import { randomUUID } from 'node:crypto';
import { type ClientRequest, request } from 'node:http';
import { setTimeout as sleep } from 'node:timers/promises';
import { startTestS3, type TestS3 } from '@forms/local-services';
import { afterAll, beforeAll, expect, inject, it } from 'vitest';
import { loadConfig } from '../../config.ts';
import { type RunningGateway, startGateway } from '../../start-gateway.ts';

// Issue 19, item 4: four slow connections locked every applicant out of CV uploads. Each declared a 7 MB
// careers body, sent 1 KB, then a byte a second; a slot was held for the whole read, with no read deadline
// nor minimum rate (Node's default is 300 s), so a real applicant from another address got 503
// CV_UPLOADS_BUSY for as long as they trickled. Now a careers body must keep up a minimum rate (and arrive
// within a deadline), so the trickles are cut within seconds, and the applicant, retrying as Retry-After
// says, gets in. The defaults are what is tested.
let s3: TestS3;
let gateway: RunningGateway;
const bucket = `slow-${randomUUID().slice(0, 8)}`;
beforeAll(async () => {
  s3 = await startTestS3();
  gateway = await startGateway(
    loadConfig({
      PORT: '0',
      HOST: '127.0.0.1',
      REDIS_URL: inject('redisUrl'),
      QUEUE_NAME: `slow-${randomUUID()}`,
      LOG_LEVEL: 'silent',
      TRUST_PROXY: 'true',
      ...s3.env(bucket),
    }),
  );
});
afterAll(async () => {
  await gateway?.stop();
  await s3?.stop();
});

/** 7 MB declared, 1 KB sent, then a byte a second (at most 60), from an address of its own. */
function trickle(address: string): { req: ClientRequest; answered: Promise<number>; stop: () => void } {
  const req = request(`${gateway.url}/api/careers-apply`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', 'content-length': '7000000', 'x-forwarded-for': address },
  });
  const answered = new Promise<number>((resolve) => {
    req.on('response', (res) => {
      res.resume();
      resolve(res.statusCode ?? 0);
    });
    req.on('error', () => resolve(0));
  });
  req.write(`{"name":"N","email":"n@acme.io","role":"R","note":"${'x'.repeat(1024)}`);
  let sent = 0;
  const timer = setInterval(() => {
    if (++sent > 60 || req.destroyed) clearInterval(timer);
    else req.write('x');
  }, 1_000);
  return {
    req,
    answered,
    stop: () => {
      clearInterval(timer);
      req.destroy();
    },
  };
}

it('under 4 slow uploads from other addresses, a real 150 KB CV is accepted within 20 s', async () => {
  const trickles = ['203.0.113.1', '203.0.113.2', '203.0.113.3', '203.0.113.4'].map(trickle);
  try {
    await sleep(500); // the four take the four slots
    const cv = Buffer.concat([Buffer.from('%PDF-1.4\n'), Buffer.alloc(150_000, 7), Buffer.from('\n%%EOF\n')]);
    const body = JSON.stringify({
      name: 'Ada',
      email: `ada-${randomUUID()}@acme.io`,
      role: 'Engineer',
      cvFile: { filename: 'ada.pdf', contentType: 'application/pdf', data: cv.toString('base64') },
    });
    const started = Date.now();
    const statuses: number[] = [];
    let answer: { success?: boolean; cvUploadFailed?: boolean } = {};
    // An applicant's page retrying as Retry-After says, for at most 20 s.
    for (let attempt = 0; attempt < 20 && Date.now() - started < 20_000; attempt++) {
      const res = await fetch(`${gateway.url}/api/careers-apply`, {
        method: 'POST',
        headers: { 'content-type': 'application/json', 'x-forwarded-for': '198.51.100.20' },
        body,
        signal: AbortSignal.timeout(20_000),
      });
      statuses.push(res.status);
      answer = await res.json();
      if (res.status !== 503) break;
      await sleep(Number(res.headers.get('retry-after') ?? 2) * 1000);
    }
    expect(statuses.at(-1), `statuses ${statuses.join(',')}`).toBe(200);
    expect(answer).toMatchObject({ success: true, cvUploadFailed: false });
    expect(Date.now() - started).toBeLessThan(20_000);
    // The trickles were cut with 408 BODY_TIMEOUT, not left to hold their slots.
    expect(await Promise.all(trickles.map((t) => t.answered))).toEqual([408, 408, 408, 408]);
  } finally {
    for (const t of trickles) t.stop();
  }
}, 40_000);
