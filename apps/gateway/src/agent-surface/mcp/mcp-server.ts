import { API_VERSION, mcpJsonSchema } from '@forms/schemas';
import { Server } from '@modelcontextprotocol/sdk/server/index.js';
import {
  CallToolRequestSchema,
  ErrorCode,
  GetPromptRequestSchema,
  ListPromptsRequestSchema,
  ListResourcesRequestSchema,
  ListResourceTemplatesRequestSchema,
  ListToolsRequestSchema,
  McpError,
  ReadResourceRequestSchema,
  type Tool,
} from '@modelcontextprotocol/sdk/types.js';
import { toolCatalogue } from '../content/agent-catalogue.ts';
import type { Site } from '../content/site.ts';
import { callTool } from './call-tool.ts';
import { listResources, readResource } from './read-resource.ts';

export const MCP_SERVER_NAME = 'creator-marketing-agency';

/** The SDK's schema of each request whose handler needs params, checked before the SDK sees the message. */
const REQUESTS_WITH_PARAMS = {
  'tools/call': CallToolRequestSchema,
  'resources/read': ReadResourceRequestSchema,
  'prompts/get': GetPromptRequestSchema,
} as const;

/**
 * JSON-RPC's -32602 for a request whose params do not fit its method (none, or a `name` that is no
 * string), with a message naming the first fault; undefined when they fit or the method takes none. The
 * SDK checks the same schemas inside its handler and answers a failure -32603 (internal error) with the
 * whole schema error as its message.
 */
export function invalidParams(message: { method: string; id?: unknown; params?: unknown }) {
  const schema = REQUESTS_WITH_PARAMS[message.method as keyof typeof REQUESTS_WITH_PARAMS];
  if (!schema || message.id === undefined) return undefined;
  const parsed = schema.safeParse(message);
  if (parsed.success) return undefined;
  const issue = parsed.error.issues[0]!;
  const at = issue.path.map(String).join('.') || 'params';
  return {
    jsonrpc: '2.0' as const,
    id: message.id,
    error: { code: ErrorCode.InvalidParams, message: `Invalid params: "${at}": ${issue.message}`.slice(0, 160) },
  };
}

function listTools(site: Site): Tool[] {
  return toolCatalogue(site.content).map((tool) => {
    const uri = tool.widget ? `ui://service/${tool.widget}` : undefined;
    return {
      name: tool.name,
      title: tool.title,
      description: tool.description,
      inputSchema: mcpJsonSchema(tool.input) as Tool['inputSchema'],
      outputSchema: mcpJsonSchema(tool.output) as Tool['outputSchema'],
      annotations: {
        title: tool.title,
        readOnlyHint: true,
        destructiveHint: false,
        idempotentHint: true,
        openWorldHint: false,
      },
      // MCP Apps links a tool to its widget by `ui.resourceUri`; ChatGPT also reads `openai/outputTemplate`.
      ...(uri ? { _meta: { ui: { resourceUri: uri }, 'ui/resourceUri': uri, 'openai/outputTemplate': uri } } : {}),
    };
  });
}

/**
 * The low-level SDK Server with JSON Schema tool definitions made from valibot (the high-level McpServer
 * wants zod). One is made per HTTP request: the server keeps no state between requests.
 */
export function createMcpServer(site: Site): Server {
  const server = new Server(
    { name: MCP_SERVER_NAME, title: site.content.name, version: API_VERSION, websiteUrl: site.content.baseUrl },
    {
      capabilities: {
        tools: { listChanged: false },
        resources: { listChanged: false },
        prompts: { listChanged: false },
      },
      instructions: `${site.content.summary} Use list_services to answer questions about the services; show_contact_form when the user wants to get in touch. Never quote prices that pricing.md does not publish.`,
    },
  );
  server.setRequestHandler(ListToolsRequestSchema, () => ({ tools: listTools(site) }));
  server.setRequestHandler(CallToolRequestSchema, (request) =>
    callTool(site.content, request.params.name, request.params.arguments),
  );
  server.setRequestHandler(ListResourcesRequestSchema, () => ({ resources: listResources(site) }));
  server.setRequestHandler(ReadResourceRequestSchema, (request) => readResource(site, request.params.uri));
  // The `resources` and `prompts` capabilities imply these methods too (MCP Inspector calls the first one);
  // we have no templates and no prompts, so a prompt name is unknown, like an unknown tool.
  server.setRequestHandler(ListResourceTemplatesRequestSchema, () => ({ resourceTemplates: [] }));
  server.setRequestHandler(ListPromptsRequestSchema, () => ({ prompts: [] }));
  server.setRequestHandler(GetPromptRequestSchema, (request) => {
    throw new McpError(ErrorCode.InvalidParams, `Unknown prompt: ${request.params.name}`);
  });
  return server;
}
