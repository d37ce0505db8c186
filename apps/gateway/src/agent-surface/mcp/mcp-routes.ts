import {
  API_VERSION,
  BODY_LIMITS,
  type JsonRpcRequest,
  JsonRpcRequestSchema,
  MCP_PROTOCOL_VERSIONS,
  type McpDescriptor,
} from '@forms/schemas';
import Router from '@koa/router';
import { WebStandardStreamableHTTPServerTransport } from '@modelcontextprotocol/sdk/server/webStandardStreamableHttp.js';
import type { Context } from 'koa';
import * as v from 'valibot';
import type { GatewayConfig } from '../../config.ts';
import { ApiError } from '../../errors.ts';
import { errorStyle } from '../../middleware/error-handler.ts';
import { jsonBody } from '../../middleware/json-body.ts';
import { methodNotAllowed } from '../../middleware/method-not-allowed.ts';
import { validHost } from '../../middleware/valid-host.ts';
import type { Site } from '../content/site.ts';
import { CHAT_FRAME_ANCESTORS } from '../content/widgets/widget-csp.ts';
import { allowedOrigin, LOCAL_DEV_ORIGINS, originMatcher } from './allowed-origin.ts';
import { createMcpServer, invalidParams, MCP_SERVER_NAME } from './mcp-server.ts';

const ALLOW = ['GET', 'POST', 'DELETE'];

/**
 * One JSON-RPC 2.0 message, parsed with JsonRpcRequestSchema, the schema /openapi.json documents for this
 * body; anything else is a 400 that says what is wrong. Batches were dropped in MCP 2025-06-18.
 */
function parseJsonRpc(body: unknown): JsonRpcRequest {
  const invalid = (detail: string) => new ApiError('INVALID_JSONRPC_REQUEST', { detail });
  if (Array.isArray(body)) throw invalid('is a batch; send one JSON-RPC message per request');
  const result = v.safeParse(JsonRpcRequestSchema, body, { abortPipeEarly: true });
  if (result.success) return result.output;
  const issue = result.issues[0];
  const path = v.getDotPath(issue);
  if (path === 'id' && issue.input === null) throw invalid('has "id": null, which MCP forbids');
  throw invalid(
    path ? `has a "${path}" that is not valid (${issue.message})` : `is not a JSON-RPC message (${issue.message})`,
  );
}

/** initialize: keep a version we support, so the SDK echoes it; otherwise ask for our newest. */
function negotiate(message: JsonRpcRequest): JsonRpcRequest {
  if (message.method !== 'initialize' || !message.params) return message;
  const asked = message.params.protocolVersion;
  const supported = (MCP_PROTOCOL_VERSIONS as readonly unknown[]).includes(asked);
  return supported ? message : { ...message, params: { ...message.params, protocolVersion: MCP_PROTOCOL_VERSIONS[0] } };
}

function mcpDescriptor(site: Site): McpDescriptor {
  const c = site.content;
  return {
    name: c.name,
    description: `MCP server for ${c.name}: services, case studies and a contact form, as tools, resources and MCP Apps widgets.`,
    transport: 'streamable-http',
    endpoint: `${c.baseUrl}/api/mcp`,
    protocolVersions: [...MCP_PROTOCOL_VERSIONS],
    serverInfo: { name: MCP_SERVER_NAME, title: c.name, version: API_VERSION },
    capabilities: { tools: { listChanged: false }, resources: { listChanged: false }, prompts: { listChanged: false } },
    authentication: 'none',
    documentation: `${c.baseUrl}/agents.md`,
  } satisfies McpDescriptor;
}

/** Hands one message to a fresh SDK server and transport (stateless, JSON responses) and copies the answer. */
async function answerWithSdk(
  ctx: Context,
  site: Site,
  endpoint: string,
  message: JsonRpcRequest,
  protocolVersion: string,
) {
  const server = createMcpServer(site);
  const transport = new WebStandardStreamableHTTPServerTransport({
    sessionIdGenerator: undefined,
    enableJsonResponse: true,
  });
  await server.connect(transport);
  try {
    // We always answer JSON, so the SDK's demand that clients also accept text/event-stream is met here
    // rather than refused: a client that accepts only application/json still gets its answer.
    // The URL is ours, never built from the Host header (a malformed one made `new Request` throw).
    const request = new Request(endpoint, {
      method: 'POST',
      headers: {
        'content-type': 'application/json',
        accept: 'application/json, text/event-stream',
        ...(protocolVersion ? { 'mcp-protocol-version': protocolVersion } : {}),
      },
    });
    const response = await transport.handleRequest(request, { parsedBody: message });
    const text = await response.text();
    if (!text) {
      ctx.body = null;
      ctx.status = response.status;
      return;
    }
    if (response.status >= 400) {
      // Not reached for anything we let through; keep the {error, message} promise if it ever is.
      const error = JSON.parse(text) as { error?: { message?: string } };
      ctx.status = response.status;
      ctx.body = { error: 'INVALID_JSONRPC_REQUEST', message: error.error?.message ?? 'The request was refused.' };
      return;
    }
    ctx.status = response.status;
    ctx.type = 'application/json';
    ctx.body = text;
  } finally {
    await transport.close();
    await server.close();
  }
}

export function mcpRoutes({ site, config }: { site: Site; config: GatewayConfig }): Router {
  const router = new Router();
  const isAllowed = originMatcher([config.publicBaseUrl, ...CHAT_FRAME_ANCESTORS, ...LOCAL_DEV_ORIGINS]);
  const guard = [errorStyle('simple'), validHost(), allowedOrigin(isAllowed)];
  const descriptor = mcpDescriptor(site);

  router.get('/api/mcp', ...guard, async function describeMcpServer(ctx) {
    // The official client opens GET with Accept: text/event-stream after initialising and keeps reopening
    // it on any 2xx; 405 is what tells it this server offers no stream.
    if (ctx.accepts('application/json', 'text/event-stream') === 'text/event-stream') {
      throw new ApiError('METHOD_NOT_ALLOWED', {
        detail: 'POST for JSON-RPC messages (this stateless server offers no event stream)',
        headers: { Allow: [...ALLOW, 'OPTIONS'].join(', ') },
      });
    }
    ctx.set('Cache-Control', 'public, max-age=3600');
    ctx.body = descriptor;
  });

  router.post('/api/mcp', ...guard, jsonBody({ limit: BODY_LIMITS.mcpBytes }), async function callMcp(ctx) {
    const message = parseJsonRpc(ctx.request.body);
    const version = ctx.get('mcp-protocol-version');
    if (version && !(MCP_PROTOCOL_VERSIONS as readonly string[]).includes(version)) {
      throw new ApiError('UNSUPPORTED_PROTOCOL_VERSION', { detail: MCP_PROTOCOL_VERSIONS.join(', ') });
    }
    const refused = invalidParams(message);
    if (refused) {
      ctx.type = 'application/json';
      ctx.body = refused;
      return;
    }
    await answerWithSdk(ctx, site, descriptor.endpoint, negotiate(message), version);
  });

  // There is no session to end.
  router.delete('/api/mcp', ...guard, async function endMcpSession(ctx) {
    ctx.status = 204;
  });

  router.all('/api/mcp', errorStyle('simple'), methodNotAllowed(ALLOW));
  return router;
}
