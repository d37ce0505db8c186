import { afterAll, beforeAll, beforeEach, describe, expect, inject, it } from 'vitest';
import { startTestGateway, type TestGateway } from '../support/test-gateway.ts';

// Issue 14.4: a `__proto__` key anywhere in a well-formed body was answered 400 INVALID_JSON "check for a
// syntax error", which is false. It is an unknown field like any other now: dropped, never queued.
let gateway: TestGateway;
beforeAll(async () => {
  gateway = await startTestGateway(inject('redisUrl'));
});
afterAll(async () => {
  await gateway?.stop();
});
beforeEach(async () => {
  await gateway.clearQueue();
});

function post(path: string, body: string) {
  return fetch(`${gateway.url}${path}`, { method: 'POST', headers: { 'content-type': 'application/json' }, body });
}

describe('__proto__ and constructor keys', () => {
  it.each([
    '{"email":"ada@acme.io","__proto__":{"isAdmin":true}}',
    '{"__proto__":"x","email":"ada@acme.io","name":"Ada"}',
    '{"email":"ada@acme.io","constructor":{"prototype":{"isAdmin":true}}}',
    '{"email":"ada@acme.io","name":"Ada","junk":[{"__proto__":{"a":1}}]}',
  ])('%s is accepted with the key dropped, and the job holds only known fields', async (body) => {
    const res = await post('/api/contact', body);
    expect(res.status).toBe(200);
    const jobs = await gateway.jobs();
    expect(jobs).toHaveLength(1);
    const data = jobs[0]!.data as Record<string, unknown>;
    expect(Object.keys(data).sort()).toEqual(
      Object.keys(JSON.parse(body))
        .filter((k) => k === 'email' || k === 'name')
        .sort(),
    );
    expect(JSON.stringify(data)).not.toMatch(/__proto__|constructor|isAdmin/);
    expect(Object.getPrototypeOf(data)).toBe(Object.prototype);
  });

  it('inside a known nested object (cvFile) it is dropped too, and the rest is judged on its merits', async () => {
    const res = await post(
      '/api/careers-apply',
      '{"name":"Grace","email":"grace@acme.io","role":"Engineer","cvFile":{"__proto__":{"x":1},"filename":"cv.pdf","contentType":"text/plain","data":"JVBERi0="}}',
    );
    // text/plain is not an accepted CV type: the answer names that field, not a JSON syntax error.
    expect(res.status).toBe(400);
    expect(await res.json()).toEqual({
      error: 'INVALID_FIELD',
      field: 'cvFile.contentType',
      message: expect.stringContaining('"cvFile.contentType"'),
    });
    expect(await gateway.jobCount()).toBe(0);
  });
});
