import { request } from 'node:http';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { startTestGateway, type TestGateway } from '../support/test-gateway.ts';

// Found by probing: POST /api/mcp with `Host: bad host` was a 500, because the route built a URL from the
// Host header (`new Request(ctx.href)` throws). fetch() cannot send such a header, so this uses node:http.
let gateway: TestGateway;
beforeAll(async () => {
  gateway = await startTestGateway(inject('redisUrl'));
});
afterAll(async () => {
  await gateway?.stop();
});

function send(path: string, host: string, method = 'POST', body = '{"jsonrpc":"2.0","id":1,"method":"ping"}') {
  const { port } = new URL(gateway.url);
  return new Promise<{ status: number; body: string }>((resolve, reject) => {
    const req = request(
      {
        host: '127.0.0.1',
        port,
        path,
        method,
        headers: { host, 'content-type': 'application/json', accept: 'application/json, text/event-stream' },
      },
      (res) => {
        let text = '';
        res.setEncoding('utf8');
        res.on('data', (chunk) => (text += chunk));
        res.on('end', () => resolve({ status: res.statusCode ?? 0, body: text }));
      },
    );
    req.on('error', reject);
    req.end(method === 'GET' ? undefined : body);
  });
}

describe('a malformed Host header', () => {
  it('is a 400 INVALID_HOST on /api/mcp, in its {error, message} shape', async () => {
    const res = await send('/api/mcp', 'bad host');
    expect(res.status).toBe(400);
    expect(JSON.parse(res.body)).toEqual({ error: 'INVALID_HOST', message: expect.stringMatching(/Host/) });
  });

  it('is a 400 INVALID_HOST on a submission too, and nothing is enqueued', async () => {
    const res = await send('/api/contact', 'a/b', 'POST', '{"email":"ada@acme.io"}');
    expect(res.status).toBe(400);
    expect(JSON.parse(res.body)).toMatchObject({ code: 'INVALID_HOST' });
    expect(await gateway.jobCount()).toBe(0);
  });

  it('a well-formed Host other than ours still gets its answer (the MCP route does not build URLs from it)', async () => {
    const res = await send('/api/mcp', 'forms.example:8443');
    expect(res.status).toBe(200);
    expect(JSON.parse(res.body)).toMatchObject({ jsonrpc: '2.0', id: 1, result: {} });
  });
});
