import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { McpError } from '@modelcontextprotocol/sdk/types.js';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { startTestGateway, type TestGateway } from '../support/test-gateway.ts';

// Issue 14.1: resources/templates/list was -32601 (method not found) to both MCP Inspector CLIs, although
// the server advertises the `resources` capability, which includes it.
let gateway: TestGateway;
let client: Client;
beforeAll(async () => {
  gateway = await startTestGateway(inject('redisUrl'));
  client = new Client({ name: 'capability-check', version: '1.0.0' });
  await client.connect(new StreamableHTTPClientTransport(new URL(`${gateway.url}/api/mcp`)));
});
afterAll(async () => {
  await client?.close();
  await gateway?.stop();
});

/** What each advertised capability obliges a server to answer (MCP 2025-11-25, server features). */
const IMPLIED: Record<string, string[]> = {
  tools: ['tools/list', 'tools/call'],
  resources: ['resources/list', 'resources/read', 'resources/templates/list'],
  prompts: ['prompts/list', 'prompts/get'],
};

describe('every method an advertised capability implies is answered', () => {
  it('resources/templates/list answers an empty list through the official client', async () => {
    expect(await client.listResourceTemplates()).toEqual({ resourceTemplates: [] });
  });

  it('no implied method is "method not found" (-32601)', async () => {
    const capabilities = Object.keys(client.getServerCapabilities() ?? {}).filter((c) => c in IMPLIED);
    expect(capabilities.sort()).toEqual(['prompts', 'resources', 'tools']);
    const params: Record<string, Record<string, unknown>> = {
      'tools/call': { name: 'list_services', arguments: {} },
      'resources/read': { uri: 'ui://service/services' },
      'prompts/get': { name: 'no-such-prompt' },
    };
    for (const method of capabilities.flatMap((c) => IMPLIED[c]!)) {
      const res = await fetch(`${gateway.url}/api/mcp`, {
        method: 'POST',
        headers: { 'content-type': 'application/json', accept: 'application/json, text/event-stream' },
        body: JSON.stringify({ jsonrpc: '2.0', id: 1, method, params: params[method] ?? {} }),
      });
      expect(res.status, method).toBe(200);
      const body = await res.json();
      expect(body.error?.code, `${method}: ${JSON.stringify(body.error)}`).not.toBe(-32601);
    }
  });

  it('prompts/get for a prompt that does not exist is invalid params (-32602), as for an unknown tool', async () => {
    const err = await client.getPrompt({ name: 'no-such-prompt' }).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(McpError);
    expect((err as McpError).code).toBe(-32602);
  });
});
