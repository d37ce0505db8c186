import { brotliCompressSync, gzipSync } from 'node:zlib';
import { afterAll, beforeAll, beforeEach, describe, expect, inject, it } from 'vitest';
import { startTestGateway, type TestGateway } from '../support/test-gateway.ts';

// Found by probing: `Content-Encoding: gzip` (or deflate, br) with a body that does not decompress was
// answered 500 (zlib's "incorrect header check"). Compressed request bodies are refused outright now:
// 415, as RFC 9110 says for a content coding the server does not take, with Accept-Encoding: identity.
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

const json = JSON.stringify({ email: 'ada@acme.io', name: 'Ada' });

function post(path: string, encoding: string, body: Buffer | string) {
  return fetch(`${gateway.url}${path}`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', 'content-encoding': encoding },
    body: typeof body === 'string' ? body : new Uint8Array(body),
  });
}

describe('a compressed request body', () => {
  it.each(['gzip', 'deflate', 'br', 'x-gzip'])('a corrupt %s body is a 415, not a 500', async (encoding) => {
    const res = await post('/api/contact', encoding, 'this is not compressed');
    expect(res.status).toBe(415);
    expect(res.headers.get('accept-encoding')).toBe('identity');
    const body = await res.json();
    expect(body).toMatchObject({ code: 'UNSUPPORTED_MEDIA_TYPE', message: expect.stringMatching(/Content-Encoding/) });
    expect(await gateway.jobCount()).toBe(0);
  });

  it('a well-formed gzip or br body is refused the same way: no zip bomb can be inflated', async () => {
    for (const [encoding, bytes] of [
      ['gzip', gzipSync(json)],
      ['br', brotliCompressSync(json)],
    ] as const) {
      const res = await post('/api/contact', encoding, bytes);
      expect(res.status, encoding).toBe(415);
    }
    const mcp = await post('/api/mcp', 'gzip', gzipSync('{"jsonrpc":"2.0","id":1,"method":"ping"}'));
    expect(mcp.status).toBe(415);
    expect(await mcp.json()).toEqual({
      error: 'UNSUPPORTED_MEDIA_TYPE',
      message: expect.stringMatching(/Content-Encoding/),
    });
    expect(await gateway.jobCount()).toBe(0);
  });

  it('identity is an uncompressed body, and is accepted', async () => {
    const res = await post('/api/contact', 'identity', json);
    expect(res.status).toBe(200);
  });
});
