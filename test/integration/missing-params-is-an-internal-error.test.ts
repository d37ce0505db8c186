import { afterAll, beforeAll, expect, inject, it } from 'vitest';
import { startTestGateway, type TestGateway } from '../support/test-gateway.ts';

// Issue 19, item 6: a `tools/call` or `resources/read` without its params (or without the param it needs)
// was answered -32603 (internal error) with the SDK's raw schema dump as the message, where JSON-RPC and
// docs/agents.md#how-it-works say -32602 (invalid params), and a message that names what is missing.
let gateway: TestGateway;
beforeAll(async () => {
  gateway = await startTestGateway(inject('redisUrl'));
});
afterAll(() => gateway?.stop());

async function call(message: Record<string, unknown>) {
  const res = await fetch(`${gateway.url}/api/mcp`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', accept: 'application/json' },
    body: JSON.stringify({ jsonrpc: '2.0', id: 7, ...message }),
  });
  return { status: res.status, body: await res.json() };
}

it.each([
  ['tools/call without params', { method: 'tools/call' }, /params/],
  ['tools/call without a name', { method: 'tools/call', params: { arguments: {} } }, /name/],
  ['tools/call with a name that is not a string', { method: 'tools/call', params: { name: 42 } }, /name/],
  ['resources/read without params', { method: 'resources/read' }, /params/],
  ['resources/read without a uri', { method: 'resources/read', params: {} }, /uri/],
  ['prompts/get without a name', { method: 'prompts/get', params: {} }, /name/],
])('%s: -32602 invalid params, naming what is wrong, no schema dump', async (_what, message, names) => {
  const { status, body } = await call(message);
  expect(status).toBe(200);
  expect(body).toMatchObject({ jsonrpc: '2.0', id: 7, error: { code: -32602, message: expect.stringMatching(names) } });
  expect(body.error.message.length).toBeLessThan(200);
  expect(body.error.message).not.toMatch(/"code":|"path":|invalid_type/);
});

it('a valid call is still answered', async () => {
  const { body } = await call({ method: 'tools/call', params: { name: 'list_services', arguments: {} } });
  expect(body.result).toBeDefined();
});
