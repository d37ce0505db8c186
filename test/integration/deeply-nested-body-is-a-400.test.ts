import { afterAll, beforeAll, beforeEach, describe, expect, inject, it } from 'vitest';
import { startTestGateway, type TestGateway } from '../support/test-gateway.ts';

// Found by probing: a body nested 7,000 levels deep in an unknown field overflowed the stack of the
// recursive normaliser and was answered 500.
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

const nestedArrays = (depth: number) => `${'['.repeat(depth)}${']'.repeat(depth)}`;
const nestedObjects = (depth: number) => `${'{"a":'.repeat(depth)}1${'}'.repeat(depth)}`;

function post(path: string, body: string) {
  return fetch(`${gateway.url}${path}`, { method: 'POST', headers: { 'content-type': 'application/json' }, body });
}

describe('a deeply nested body', () => {
  it.each([
    ['arrays 7,000', nestedArrays(7_000)],
    // about as deep as objects go within the route's 16 KiB
    ['objects 2,500', nestedObjects(2_500)],
  ])('%s levels deep in an unknown field is a 400 INVALID_JSON, not a 500', async (_kind, junk) => {
    const res = await post('/api/contact', `{"email":"ada@acme.io","junk":${junk}}`);
    expect(res.status).toBe(400);
    const body = await res.json();
    expect(body).toMatchObject({ code: 'INVALID_JSON', message: expect.stringMatching(/nested more than \d+ levels/) });
    expect(await gateway.jobCount()).toBe(0);
  });

  it('is refused on /api/mcp too, in its {error, message} shape', async () => {
    const res = await post(
      '/api/mcp',
      `{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"list_services","arguments":${nestedObjects(7_000)}}}`,
    );
    expect(res.status).toBe(400);
    expect(await res.json()).toEqual({ error: 'INVALID_JSON', message: expect.stringMatching(/nested/) });
  });

  it('a little nesting in an unknown field is dropped like any unknown field', async () => {
    const res = await post('/api/contact', `{"email":"ada@acme.io","junk":${nestedObjects(10)}}`);
    expect(res.status).toBe(200);
    expect(await gateway.jobCount()).toBe(1);
  });
});
