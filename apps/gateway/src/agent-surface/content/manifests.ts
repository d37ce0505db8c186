import { API_VERSION, MCP_PROTOCOL_VERSIONS } from '@forms/schemas';
import { textResources, toolCatalogue, widgetResources } from './agent-catalogue.ts';
import type { SiteContent } from './content.ts';
import { widgetResourceMeta } from './widget-meta.ts';

/** The JSON discovery files: A2A agent card, MCP manifest, ai-plugin.json. */

export function renderAgentCard(c: SiteContent): Record<string, unknown> {
  return {
    protocolVersion: '0.3.0',
    name: c.name,
    description: `${c.summary} Agents talk to it over MCP at ${c.baseUrl}/api/mcp (no A2A task endpoint); no authentication.`,
    url: `${c.baseUrl}/api/mcp`,
    preferredTransport: 'JSONRPC',
    version: API_VERSION,
    provider: { organization: c.name, url: c.baseUrl },
    documentationUrl: `${c.baseUrl}/agents.md`,
    capabilities: { streaming: false, pushNotifications: false, stateTransitionHistory: false },
    securitySchemes: {},
    security: [],
    defaultInputModes: ['application/json', 'text/plain'],
    defaultOutputModes: ['application/json', 'text/plain', 'text/html'],
    skills: toolCatalogue(c).map((tool) => ({
      id: tool.name,
      name: tool.title,
      description: tool.description,
      tags: tool.widget ? ['creator marketing', 'widget'] : ['creator marketing'],
      inputModes: ['application/json'],
      outputModes: tool.widget ? ['application/json', 'text/html'] : ['application/json', 'text/plain'],
    })),
  };
}

export function renderMcpManifest(c: SiteContent): Record<string, unknown> {
  return {
    name: c.name,
    description: c.summary,
    version: API_VERSION,
    transport: { type: 'streamable-http', url: `${c.baseUrl}/api/mcp` },
    protocolVersions: [...MCP_PROTOCOL_VERSIONS],
    authentication: { type: 'none' },
    capabilities: { tools: {}, resources: {}, prompts: {} },
    tools: toolCatalogue(c).map((t) => ({
      name: t.name,
      title: t.title,
      description: t.description,
      ...(t.widget ? { _meta: { ui: { resourceUri: `ui://service/${t.widget}` } } } : {}),
    })),
    resources: [
      ...textResources(c).map((r) => ({ uri: r.uri, name: r.name, title: r.title, mimeType: r.mimeType })),
      ...widgetResources(c).map((r) => ({
        uri: r.uri,
        name: r.name,
        title: r.title,
        mimeType: r.mimeType,
        _meta: widgetResourceMeta(c, r),
      })),
    ],
    documentation: `${c.baseUrl}/agents.md`,
    contact: c.contactEmail,
  };
}

export function renderAiPlugin(c: SiteContent): Record<string, unknown> {
  return {
    schema_version: 'v1',
    name_for_human: c.name,
    name_for_model: 'creator_marketing_agency',
    description_for_human: c.tagline,
    description_for_model: `${c.summary} Use it to describe the services, show case studies, or send a contact request the user asked for. No authentication.`,
    auth: { type: 'none' },
    api: { type: 'openapi', url: `${c.baseUrl}/openapi.json` },
    contact_email: c.contactEmail,
    legal_info_url: `${c.baseUrl}/llms-full.txt`,
  };
}
