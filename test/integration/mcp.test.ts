import type { RunningGateway } from '@forms/gateway';
import { MCP_APP_MIME_TYPE, MCP_PROTOCOL_VERSIONS } from '@forms/schemas';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { type JSONRPCMessage, McpError } from '@modelcontextprotocol/sdk/types.js';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { checkedFetch, openApiResponseCheck } from '../support/openapi-validator.ts';
import { startTestGateway } from '../support/test-gateway.ts';

const check = openApiResponseCheck();
const seen: string[] = [];
const http = checkedFetch(check, seen);
let gateway: RunningGateway;

beforeAll(async () => {
  gateway = await startTestGateway(inject('redisUrl'), {}, { selfBaseUrl: true });
});
afterAll(async () => {
  await gateway?.stop();
});

/** The official client over real HTTP; `version` makes it ask for that protocol version in initialize. */
async function connect(url: string, version?: string) {
  const transport = new StreamableHTTPClientTransport(new URL(`${url}/api/mcp`), { fetch: http });
  if (version) {
    const send = transport.send.bind(transport);
    transport.send = (message: JSONRPCMessage, options) => {
      if ('method' in message && message.method === 'initialize')
        message = { ...message, params: { ...message.params, protocolVersion: version } };
      return send(message, options);
    };
  }
  const client = new Client({ name: 'agent-surface-test', version: '1.0.0' });
  await client.connect(transport);
  return { client, transport };
}

function rpc(body: unknown, headers: Record<string, string> = {}) {
  return http(`${gateway.url}/api/mcp`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', accept: 'application/json, text/event-stream', ...headers },
    body: typeof body === 'string' ? body : JSON.stringify(body),
  });
}

describe('MCP over the official SDK client', () => {
  it.each(MCP_PROTOCOL_VERSIONS)('initialises with protocol version %s and gets it echoed', async (version) => {
    const { client, transport } = await connect(gateway.url, version);
    expect(transport.protocolVersion).toBe(version);
    expect(transport.sessionId).toBeUndefined();
    expect(client.getServerVersion()).toMatchObject({ name: 'creator-marketing-agency', version: '1.0.0' });
    expect(client.getServerCapabilities()).toMatchObject({ tools: {}, resources: {}, prompts: {} });
    await client.ping();
    await client.close();
  });

  it('lists and calls every tool, with text and structured content', async () => {
    const { client } = await connect(gateway.url);
    const { tools } = await client.listTools();
    expect(tools.map((t) => t.name).sort()).toEqual([
      'list_services',
      'show_case_studies',
      'show_contact_form',
      'show_services',
    ]);
    const { resources } = await client.listResources();
    for (const tool of tools) {
      expect(tool.title).toBeTruthy();
      expect(tool.inputSchema.type).toBe('object');
      expect(tool.outputSchema?.type).toBe('object');
      expect(tool.annotations).toMatchObject({ readOnlyHint: true, destructiveHint: false });
      const uri = (tool._meta?.ui as { resourceUri?: string } | undefined)?.resourceUri;
      if (tool.name.startsWith('show_')) expect(resources.map((r) => r.uri)).toContain(uri);
      // The client checks structuredContent against the outputSchema it was given by tools/list.
      const result = await client.callTool({ name: tool.name, arguments: {} });
      expect(result.isError).toBeFalsy();
      expect((result.content as { type: string; text: string }[])[0]).toMatchObject({
        type: 'text',
        text: expect.stringMatching(/\S/),
      });
      expect(result.structuredContent).toBeTypeOf('object');
    }
    const services = await client.callTool({ name: 'list_services', arguments: {} });
    expect((services.structuredContent as { services: unknown[] }).services).toHaveLength(6);
    const one = await client.callTool({ name: 'show_case_studies', arguments: { service: 'rebriefing-playbook' } });
    for (const cs of (one.structuredContent as { caseStudies: { services: string[] }[] }).caseStudies)
      expect(cs.services).toContain('rebriefing-playbook');
    const form = await client.callTool({ name: 'show_contact_form', arguments: { userType: 'brand' } });
    expect(form.structuredContent).toMatchObject({
      endpoint: `${gateway.url}/api/contact`,
      method: 'POST',
      userType: 'brand',
    });
    await client.close();
  });

  it('answers bad tool arguments with isError, an unknown tool with a JSON-RPC error', async () => {
    const { client } = await connect(gateway.url);
    await client.listTools();
    const bad = await client.callTool({ name: 'list_services', arguments: { service: 'astrology' } });
    expect(bad.isError).toBe(true);
    expect((bad.content as { text: string }[])[0]!.text).toContain('service');
    const extra = await client.callTool({ name: 'show_services', arguments: { colour: 'red' } });
    expect(extra.isError).toBe(true);
    const unknown = await client.callTool({ name: 'get_horoscope', arguments: {} }).catch((err: unknown) => err);
    expect(unknown).toBeInstanceOf(McpError);
    expect((unknown as McpError).code).toBe(-32602);
    await client.close();
  });

  it('lists and reads every resource; widget HTML equals what /ui/<name>.html serves', async () => {
    const { client } = await connect(gateway.url);
    const { resources } = await client.listResources();
    expect(resources.map((r) => r.uri).sort()).toEqual(
      [
        ...['/agents.md', '/llms-full.txt', '/llms.txt', '/openapi.json', '/pricing.md'].map(
          (p) => `${gateway.url}${p}`,
        ),
        'ui://service/case-studies',
        'ui://service/contact-form',
        'ui://service/services',
      ].sort(),
    );
    for (const resource of resources) {
      const { contents } = await client.readResource({ uri: resource.uri });
      const content = contents[0] as { uri: string; mimeType: string; text: string; _meta?: Record<string, any> };
      expect(content.uri).toBe(resource.uri);
      expect(content.mimeType).toBe(resource.mimeType);
      if (resource.uri.startsWith('ui://')) {
        const name = resource.uri.slice('ui://service/'.length);
        expect(content.mimeType).toBe(MCP_APP_MIME_TYPE);
        expect(content._meta?.ui).toMatchObject({
          csp: { connectDomains: [gateway.url] },
          url: `${gateway.url}/ui/${name}.html`,
        });
        expect(resource._meta?.ui).toEqual(content._meta?.ui);
        expect(content.text).toBe(await (await http(`${gateway.url}/ui/${name}.html`)).text());
      } else {
        expect(content.text).toBe(await (await http(resource.uri)).text());
      }
    }
    const missing = await client.readResource({ uri: 'ui://service/nothing' }).catch((err: unknown) => err);
    expect((missing as McpError).code).toBe(-32002);
    expect(await client.listPrompts()).toEqual({ prompts: [] });
    await client.close();
  });

  it('offers the pricing tools and widget only when rates are configured', async () => {
    const priced = await startTestGateway(
      inject('redisUrl'),
      { PRICING_FEE_PER_CREATOR: '250', PRICING_REVENUE_SHARE_PERCENT: '10', PRICING_CURRENCY: 'GBP' },
      { selfBaseUrl: true },
    );
    try {
      const { client } = await connect(priced.url);
      const { tools } = await client.listTools();
      expect(tools.map((t) => t.name)).toEqual(expect.arrayContaining(['get_pricing', 'show_pricing_calculator']));
      const estimate = await client.callTool({
        name: 'get_pricing',
        arguments: { creators: 4, affiliateRevenue: 1000 },
      });
      expect(estimate.structuredContent).toMatchObject({
        currency: 'GBP',
        creatorFees: 1000,
        revenueShare: 100,
        total: 1100,
      });
      const invalid = await client.callTool({ name: 'get_pricing', arguments: { creators: 0 } });
      expect(invalid.isError).toBe(true);
      const { resources } = await client.listResources();
      expect(resources.map((r) => r.uri)).toContain('ui://service/pricing-calculator');
      await client.close();
    } finally {
      await priced.stop();
    }
  });
});

describe('MCP raw HTTP statuses', () => {
  const init = {
    jsonrpc: '2.0',
    id: 1,
    method: 'initialize',
    params: { protocolVersion: '2025-03-26', capabilities: {}, clientInfo: { name: 'raw', version: '1' } },
  };

  it('answers initialize with the newest version when the asked one is unknown, and never sends a session id', async () => {
    const res = await rpc({ ...init, params: { ...init.params, protocolVersion: '2023-01-01' } });
    expect(res.status).toBe(200);
    expect(res.headers.get('mcp-session-id')).toBeNull();
    expect((await res.json()).result.protocolVersion).toBe(MCP_PROTOCOL_VERSIONS[0]);
  });

  it('takes a client that accepts only application/json', async () => {
    const res = await rpc(init, { accept: 'application/json' });
    expect(res.status).toBe(200);
    expect((await res.json()).result.protocolVersion).toBe('2025-03-26');
  });

  it('202 with no body for a notification', async () => {
    const res = await rpc({ jsonrpc: '2.0', method: 'notifications/initialized' });
    expect(res.status).toBe(202);
    expect(await res.text()).toBe('');
  });

  it('400 {error, message} for malformed JSON and invalid JSON-RPC', async () => {
    for (const body of [
      '{"jsonrpc": "2.0", "method": ',
      JSON.stringify({ id: 1, method: 'ping' }),
      JSON.stringify([init]),
      JSON.stringify({ jsonrpc: '2.0', id: null, method: 'ping' }),
      JSON.stringify({ jsonrpc: '2.0', id: 1 }),
    ]) {
      const res = await rpc(body);
      expect(res.status, body).toBe(400);
      expect(Object.keys(await res.json()).sort()).toEqual(['error', 'message']);
    }
    const header = await rpc({ jsonrpc: '2.0', id: 2, method: 'ping' }, { 'mcp-protocol-version': '1999-01-01' });
    expect(header.status).toBe(400);
    expect((await header.json()).error).toBe('UNSUPPORTED_PROTOCOL_VERSION');
  });

  it('JSON-RPC errors for an unknown method, tool and resource', async () => {
    const method = await (await rpc({ jsonrpc: '2.0', id: 3, method: 'sampling/createMessage' })).json();
    expect(method).toMatchObject({ jsonrpc: '2.0', id: 3, error: { code: -32601 } });
    const tool = await (
      await rpc({ jsonrpc: '2.0', id: 4, method: 'tools/call', params: { name: 'nope', arguments: {} } })
    ).json();
    expect(tool.error.code).toBe(-32602);
    const resource = await (
      await rpc({ jsonrpc: '2.0', id: 5, method: 'resources/read', params: { uri: 'ui://service/nope' } })
    ).json();
    expect(resource.error.code).toBe(-32002);
  });

  it('GET: the descriptor for JSON, 405 for an event stream; DELETE 204; other methods 405', async () => {
    const json = await http(`${gateway.url}/api/mcp`, { headers: { accept: 'application/json' } });
    expect(json.status).toBe(200);
    expect(await json.json()).toMatchObject({
      transport: 'streamable-http',
      protocolVersions: [...MCP_PROTOCOL_VERSIONS],
      serverInfo: { name: 'creator-marketing-agency' },
    });
    const stream = await http(`${gateway.url}/api/mcp`, { headers: { accept: 'text/event-stream' } });
    expect(stream.status).toBe(405);
    expect(Object.keys(await stream.json()).sort()).toEqual(['error', 'message']);
    const del = await http(`${gateway.url}/api/mcp`, { method: 'DELETE' });
    expect(del.status).toBe(204);
    for (const method of ['PUT', 'PATCH']) {
      const res = await http(`${gateway.url}/api/mcp`, {
        method,
        headers: { 'content-type': 'application/json' },
        body: '{}',
      });
      expect(res.status).toBe(405);
      expect(res.headers.get('allow')).toContain('POST');
      expect(await res.json()).toEqual({ error: 'METHOD_NOT_ALLOWED', message: expect.any(String) });
    }
  });

  it('checks Origin: our site, the chat assistants and local development pass; others get 403', async () => {
    const ping = { jsonrpc: '2.0', id: 9, method: 'ping' };
    for (const origin of [
      gateway.url,
      'https://chatgpt.com',
      'https://claude.ai',
      'https://abc.web-sandbox.oaiusercontent.com',
      'http://localhost:6274',
    ]) {
      expect((await rpc(ping, { origin })).status, origin).toBe(200);
    }
    for (const origin of ['https://evil.example', 'null', 'https://chatgpt.com.evil.example', 'http://claude.ai']) {
      const res = await rpc(ping, { origin });
      expect(res.status, origin).toBe(403);
      expect(await res.json()).toEqual({ error: 'FORBIDDEN_ORIGIN', message: expect.any(String) });
    }
  });

  it('sent every response above through the OpenAPI check', () => {
    expect(seen.length).toBeGreaterThan(40);
  });
});
