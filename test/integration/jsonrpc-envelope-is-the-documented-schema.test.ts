import { JsonRpcRequestSchema } from '@forms/schemas';
import * as v from 'valibot';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { startTestGateway, type TestGateway } from '../support/test-gateway.ts';

// Issue 13: /api/mcp parsed the envelope by hand and disagreed with the JsonRpcRequest schema that
// /openapi.json documents (the schema caps `method` and `id` at 200 characters; the hand parser did not).
let gateway: TestGateway;
beforeAll(async () => {
  gateway = await startTestGateway(inject('redisUrl'));
});
afterAll(async () => {
  await gateway?.stop();
});

const long = 'x'.repeat(201);
const envelopes: unknown[] = [
  { jsonrpc: '2.0', id: 1, method: 'ping' },
  { jsonrpc: '2.0', id: 'a', method: 'ping', params: {} },
  { jsonrpc: '2.0', method: 'notifications/initialized' },
  { jsonrpc: '2.0', id: 1, method: long },
  { jsonrpc: '2.0', id: long, method: 'ping' },
  { jsonrpc: '2.0', id: 1.5, method: 'ping' },
  { jsonrpc: '2.0', id: null, method: 'ping' },
  { jsonrpc: '2.0', id: 1, method: '' },
  { jsonrpc: '1.0', id: 1, method: 'ping' },
  { jsonrpc: '2.0', id: 1, method: 'ping', params: [] },
  { jsonrpc: '2.0', id: 1, method: 'ping', params: null },
  { jsonrpc: '2.0', id: 1 },
  [{ jsonrpc: '2.0', id: 1, method: 'ping' }],
];

describe('/api/mcp takes exactly the envelopes JsonRpcRequest allows', () => {
  it.each(envelopes.map((e) => [JSON.stringify(e).slice(0, 80), e]))('%s', async (_label, envelope) => {
    const documented = v.safeParse(JsonRpcRequestSchema, envelope).success;
    const res = await fetch(`${gateway.url}/api/mcp`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', accept: 'application/json, text/event-stream' },
      body: JSON.stringify(envelope),
    });
    const body = res.status === 202 ? null : await res.json();
    if (documented) {
      expect([200, 202], JSON.stringify(body)).toContain(res.status);
    } else {
      expect(res.status).toBe(400);
      expect(body).toEqual({ error: 'INVALID_JSONRPC_REQUEST', message: expect.any(String) });
    }
  });
});
