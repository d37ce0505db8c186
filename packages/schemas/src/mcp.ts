import { toJsonSchema } from '@valibot/to-json-schema';
import * as v from 'valibot';
import { EMAIL_MAX } from './fields.ts';
import { jsonObject } from './json-object.ts';
import { JSON_SCHEMA_CONFIG } from './json-schema-config.ts';
import { maxCodePoints } from './max-code-points.ts';

/**
 * MCP protocol versions /api/mcp accepts, newest first. `initialize` echoes the client's version when it is
 * listed here and answers the first (newest) otherwise, as the MCP lifecycle asks.
 */
export const MCP_PROTOCOL_VERSIONS = ['2025-11-25', '2025-06-18', '2025-03-26', '2024-11-05'] as const;
export type McpProtocolVersion = (typeof MCP_PROTOCOL_VERSIONS)[number];

/** MCP Apps: the MIME type of an HTML widget resource (SEP-1865). */
export const MCP_APP_MIME_TYPE = 'text/html;profile=mcp-app';

/** The JSON-RPC methods /api/mcp answers; anything else is a JSON-RPC "method not found". */
export const MCP_METHODS = [
  'initialize',
  'tools/list',
  'tools/call',
  'resources/list',
  'resources/read',
  'resources/templates/list',
  'prompts/list',
  'prompts/get',
  'ping',
] as const;

const JsonRpcIdSchema = v.pipe(
  v.union([v.pipe(v.string(), maxCodePoints(200)), v.pipe(v.number(), v.integer())]),
  v.description('Request id, echoed in the response; absent for a notification'),
);

/**
 * The body of POST /api/mcp: one JSON-RPC 2.0 request or notification. The route parses with this very
 * schema, so /openapi.json documents what it takes. A client's response to a server request is not taken:
 * this stateless server never sends one.
 */
export const JsonRpcRequestSchema = v.object({
  jsonrpc: v.pipe(v.literal('2.0'), v.description('Must be "2.0"')),
  method: v.pipe(
    v.string(),
    v.minLength(1),
    maxCodePoints(200),
    v.description(`One of ${MCP_METHODS.join(', ')}, or a notification`),
  ),
  id: v.optional(JsonRpcIdSchema),
  params: v.optional(v.pipe(jsonObject(), v.description('Method parameters'))),
});
export type JsonRpcRequest = v.InferOutput<typeof JsonRpcRequestSchema>;

/** A 200 answer of POST /api/mcp: a result, or a JSON-RPC error (unknown method, tool or resource). */
export const JsonRpcResponseSchema = v.object({
  jsonrpc: v.literal('2.0'),
  id: v.nullable(JsonRpcIdSchema),
  result: v.optional(v.pipe(v.record(v.string(), v.unknown()), v.description('The method result'))),
  error: v.optional(
    v.object({
      code: v.pipe(
        v.number(),
        v.integer(),
        v.description('JSON-RPC error code, e.g. -32601 method not found, -32602 invalid params'),
      ),
      message: v.string(),
      data: v.optional(v.unknown()),
    }),
  ),
});

/** GET /api/mcp with `Accept: application/json`: what a client needs before it connects. */
export const McpDescriptorSchema = v.object({
  name: v.string(),
  description: v.string(),
  transport: v.pipe(v.literal('streamable-http'), v.description('MCP Streamable HTTP, stateless, JSON responses')),
  endpoint: v.pipe(v.string(), v.url()),
  protocolVersions: v.pipe(v.array(v.string()), v.description('Supported MCP protocol versions, newest first')),
  serverInfo: v.object({ name: v.string(), title: v.string(), version: v.string() }),
  capabilities: v.record(v.string(), v.unknown()),
  authentication: v.pipe(v.literal('none'), v.description('No key or token is needed')),
  documentation: v.pipe(v.string(), v.url()),
});
export type McpDescriptor = v.InferOutput<typeof McpDescriptorSchema>;

/** The agency's services; the content source keys its catalogue by these ids, so nothing can drift. */
export const SERVICE_IDS = [
  'creator-partnership-ads',
  'content-analysis-framework',
  'creator-discovery-guide',
  'seeding-affiliate-playbook',
  'rebriefing-playbook',
  'usa-programme',
] as const;
export type ServiceId = (typeof SERVICE_IDS)[number];

const ServiceFilterSchema = v.optional(
  v.pipe(v.picklist(SERVICE_IDS), v.description('Limit the answer to one service, by id (see list_services)')),
);

export const ListServicesInputSchema = v.strictObject({ service: ServiceFilterSchema });
export const ShowServicesInputSchema = v.strictObject({ service: ServiceFilterSchema });
export const ShowCaseStudiesInputSchema = v.strictObject({ service: ServiceFilterSchema });
export const ShowContactFormInputSchema = v.strictObject({
  userType: v.optional(v.pipe(v.picklist(['brand', 'creator', 'agency']), v.description('Preselects who is writing'))),
});
export const GetPricingInputSchema = v.strictObject({
  creators: v.pipe(
    v.number(),
    v.integer(),
    v.minValue(1),
    v.maxValue(10_000),
    v.description('Creators to source and manage'),
  ),
  affiliateRevenue: v.optional(
    v.pipe(
      v.number(),
      v.minValue(0),
      v.description('Expected affiliate revenue over the partnership, in the pricing currency'),
    ),
  ),
});
export const ShowPricingCalculatorInputSchema = v.strictObject({});

export const ServiceSchema = v.object({
  id: v.picklist(SERVICE_IDS),
  name: v.string(),
  kind: v.pipe(
    v.picklist(['managed service', 'guide', 'playbook', 'programme']),
    v.description('What the client receives'),
  ),
  summary: v.string(),
  forWho: v.pipe(v.string(), v.description('Who it is for')),
  includes: v.array(v.string()),
  signup: v.object({
    method: v.literal('POST'),
    url: v.pipe(v.string(), v.url()),
    workEmailOnly: v.boolean(),
  }),
});
export const ServiceCatalogueSchema = v.object({
  services: v.array(ServiceSchema),
  contactEmail: v.pipe(v.string(), v.maxLength(EMAIL_MAX)),
  pricingApproach: v.string(),
});
export type ServiceCatalogue = v.InferOutput<typeof ServiceCatalogueSchema>;

export const CaseStudySchema = v.object({
  id: v.string(),
  title: v.string(),
  basis: v.pipe(
    v.literal('illustrative'),
    v.description('An engagement shape, not a named client: no client names or results are published'),
  ),
  services: v.array(v.picklist(SERVICE_IDS)),
  situation: v.string(),
  approach: v.array(v.string()),
  measuredBy: v.array(v.string()),
});
export const CaseStudiesSchema = v.object({ caseStudies: v.array(CaseStudySchema), note: v.string() });
export type CaseStudies = v.InferOutput<typeof CaseStudiesSchema>;

export const ContactFormSchema = v.object({
  endpoint: v.pipe(v.string(), v.url()),
  method: v.literal('POST'),
  fields: v.array(v.object({ name: v.string(), label: v.string(), required: v.boolean() })),
  userType: v.optional(v.string()),
  contactEmail: v.string(),
});
export type ContactForm = v.InferOutput<typeof ContactFormSchema>;

export const PricingEstimateSchema = v.object({
  currency: v.string(),
  creators: v.number(),
  feePerCreator: v.number(),
  creatorFees: v.number(),
  revenueSharePercent: v.number(),
  revenueShare: v.optional(v.number()),
  total: v.optional(v.number()),
  note: v.string(),
});
export type PricingEstimate = v.InferOutput<typeof PricingEstimateSchema>;

/** JSON Schema (2020-12, MCP's default dialect) for a tool's input or output. */
export function mcpJsonSchema(schema: v.GenericSchema): Record<string, unknown> {
  const { $schema: _dialect, ...rest } = toJsonSchema(schema, JSON_SCHEMA_CONFIG) as Record<string, unknown>;
  return rest;
}
