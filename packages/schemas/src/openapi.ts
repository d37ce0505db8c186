import { toJsonSchemaDefs } from '@valibot/to-json-schema';
import type * as v from 'valibot';
import { BODY_LIMITS } from './body-limits.ts';
import { CvFileSchema } from './careers-apply.ts';
import { AGENT_SKILL_NAMES, DISCOVERY_FILES, WIDGET_NAMES } from './discovery-files.ts';
import { ERROR_CODES, type ErrorCode, ErrorSchema, SimpleErrorSchema } from './errors.ts';
import { HealthSchema, ReadinessSchema } from './health.ts';
import { JSON_SCHEMA_CONFIG } from './json-schema-config.ts';
import { LatestVideoSchema } from './latest-video.ts';
import {
  JsonRpcRequestSchema,
  JsonRpcResponseSchema,
  MCP_METHODS,
  MCP_PROTOCOL_VERSIONS,
  McpDescriptorSchema,
} from './mcp.ts';
import { SUBMISSION_ENDPOINTS } from './submissions.ts';

type Json = Record<string, unknown>;

/** The bump that any change to a request or response shape needs. */
export const API_VERSION = '1.0.0';

/** Every error code with its status, short word and default message: the table /docs#errors shows. */
export function errorCodeTable() {
  return (Object.keys(ERROR_CODES) as ErrorCode[]).map((code) => {
    const entry = ERROR_CODES[code];
    return { code, status: entry.status, error: entry.error, message: entry.message() };
  });
}

function componentSchemas(): Record<string, Json> {
  const definitions: Record<string, v.GenericSchema> = {
    Error: ErrorSchema,
    SimpleError: SimpleErrorSchema,
    LatestVideo: LatestVideoSchema,
    JsonRpcRequest: JsonRpcRequestSchema,
    JsonRpcResponse: JsonRpcResponseSchema,
    McpDescriptor: McpDescriptorSchema,
    Health: HealthSchema,
    Readiness: ReadinessSchema,
    CvFile: CvFileSchema,
  };
  for (const endpoint of SUBMISSION_ENDPOINTS) {
    definitions[endpoint.requestName] = endpoint.request;
    definitions[endpoint.responseName] = endpoint.response;
  }
  return toJsonSchemaDefs(definitions, {
    ...JSON_SCHEMA_CONFIG,
    overrideRef: ({ referenceId }) => `#/components/schemas/${referenceId}`,
  }) as Record<string, Json>;
}

const ref = (name: string) => ({ $ref: `#/components/schemas/${name}` });
const json = (schema: Json) => ({ 'application/json': { schema } });

/** A response for each status the codes of `style` can take, listing the codes in its description. */
function errorResponses(
  statuses: number[],
  style: 'structured' | 'simple',
  extra: Partial<Record<number, string>> = {},
) {
  const out: Record<string, Json> = {};
  for (const status of statuses) {
    const codes = errorCodeTable()
      .filter((row) => row.status === status)
      .map((row) => row.code);
    const where = style === 'simple' ? '`error` holds the code' : '`code` holds the code';
    out[String(status)] = {
      description: `${extra[status] ?? codes.map((c) => `\`${c}\``).join(', ')} (${where}; see /docs#errors).`,
      content: json(ref(style === 'simple' ? 'SimpleError' : 'Error')),
      ...(status === 405
        ? { headers: { Allow: { description: 'The methods the path takes', schema: { type: 'string' } } } }
        : {}),
      ...(status === 503 || status === 429
        ? { headers: { 'Retry-After': { description: 'Seconds to wait before retrying', schema: { type: 'string' } } } }
        : {}),
    };
  }
  return out;
}

function operationId(path: string, method: string) {
  const words = `${method} ${path}`
    .replace(/[^a-zA-Z0-9]+/g, ' ')
    .trim()
    .split(' ');
  return words.map((w, i) => (i === 0 ? w.toLowerCase() : w[0]!.toUpperCase() + w.slice(1).toLowerCase())).join('');
}

/**
 * What every submission body is held to beyond its schema, stated where a client reads the operation.
 * The schema's own rules (caps in code points, patterns) are what the gateway checks, on the body as sent.
 */
const INPUT_RULES =
  'Unknown fields, `__proto__` included, are dropped and never stored. Strings are trimmed after validation, and an optional string left empty is ignored. ' +
  'NUL characters are removed and lone UTF-16 surrogates replaced with U+FFFD before the submission is queued, so that every CRM can store it. ' +
  `Refused before validation: a body nested more than ${BODY_LIMITS.depth} levels deep, or holding more than ${BODY_LIMITS.members} members and items in all (400 \`INVALID_JSON\`), or sent with a \`Content-Encoding\` other than identity (415).`;

/** What a plain HTML form's post gets (docs/site-forms.md#plain-html-forms), stated on every submission. */
const FORM_RULES =
  'A plain HTML form may post the same fields as `application/x-www-form-urlencoded` or `multipart/form-data`: field names as in JSON, a dotted name for a nested field (`cvFile.filename`), a plain boolean as `true`/`on` or `false`/`off`, an empty value as absent; careers-apply takes its CV as a file input named `cvFile`. ' +
  `Such a body is held to the same limits (at most ${BODY_LIMITS.members} fields, names nested at most ${BODY_LIMITS.depth} levels: else 400 \`INVALID_FORM\`). ` +
  "A browser's own form post (a form body sent with `Sec-Fetch-Mode: navigate`, or, without that header, `Accept: text/html`) is answered for a person: 303 to the page in its `_next` field when FORM_REDIRECT_URLS allows it, else a small HTML thank-you page (a `_next` or `_error` off the list is never followed and never refused: the submission is judged on its own merits); a refusal, a 413 included, is 303 to its `_error` page (`{error}` in its path becomes the code) with `form`, `error` and `field` in the query string, or an HTML page with the error's status saying what to do in words.";

/** The careers form's multipart body: the JSON fields, with the CV as a file instead of base64. */
function multipartSchema(endpoint: (typeof SUBMISSION_ENDPOINTS)[number]): Json {
  if (endpoint.kind !== 'careers-apply') return ref(endpoint.requestName);
  const json = componentSchemas()[endpoint.requestName]!;
  return {
    ...json,
    properties: {
      ...(json.properties as Json),
      cvFile: {
        type: 'string',
        contentMediaType: 'application/octet-stream',
        description: 'The CV file (PDF, DOC or DOCX, at most 5 MiB), from `<input type="file" name="cvFile">`',
      },
    },
  };
}

function sizeRule(bytes: number, code: string): string {
  const size = bytes >= 1024 * 1024 ? `${bytes / (1024 * 1024)} MiB` : `${bytes / 1024} KiB`;
  return `A body over ${size} is refused with 413 \`${code}\`.`;
}

function submissionPaths(): Record<string, Json> {
  const paths: Record<string, Json> = {};
  for (const endpoint of SUBMISSION_ENDPOINTS) {
    paths[endpoint.path] = {
      [endpoint.method.toLowerCase()]: {
        operationId: operationId(endpoint.path, endpoint.method),
        summary: endpoint.summary,
        description: [
          `Validates the body, queues it, and answers once the queue holds it.`,
          endpoint.workEmailOnly
            ? `\`${endpoint.emailField}\` must be a work address: an address at a free-mail or disposable domain (or a subdomain of one), from the lists of the \`free-email-domains\` and \`disposable-email-domains\` packages, is refused with 400 \`WORK_EMAIL_REQUIRED\` although the schema alone allows it.`
            : '',
          INPUT_RULES,
          FORM_RULES,
          endpoint.kind === 'careers-apply'
            ? sizeRule(BODY_LIMITS.careersBytes, 'CV_TOO_LARGE')
            : sizeRule(BODY_LIMITS.submissionBytes, 'PAYLOAD_TOO_LARGE'),
          endpoint.errorStyle === 'simple' ? 'Errors use the SimpleError shape.' : '',
        ]
          .filter(Boolean)
          .join(' '),
        tags: ['submissions'],
        parameters: [
          {
            name: 'Idempotency-Key',
            in: 'header',
            required: false,
            description:
              'A key made once per submission (a UUID), sent again on every retry of it: for 24 hours the same key and body answer the first answer and queue nothing more; the same key with another body is 409 IDEMPOTENCY_KEY_REUSED.',
            schema: { type: 'string', minLength: 1, maxLength: 255, pattern: '^[\\x20-\\x7e]+$' },
          },
        ],
        requestBody: {
          required: true,
          content: {
            ...json(ref(endpoint.requestName)),
            'application/x-www-form-urlencoded': { schema: ref(endpoint.requestName) },
            'multipart/form-data': { schema: multipartSchema(endpoint) },
          },
        },
        responses: {
          '200': { description: `Accepted and queued.`, content: json(ref(endpoint.responseName)) },
          '303': {
            description:
              "A browser's own form post: accepted and sent on to its allowlisted `_next` page, or refused and sent back to its `_error` page.",
            headers: { Location: { description: 'Where the browser goes next', schema: { type: 'string' } } },
          },
          ...errorResponses(
            [400, 405, 409, ...(endpoint.kind === 'careers-apply' ? [408] : []), 413, 415, 429, 500, 503],
            endpoint.errorStyle,
            {
              400:
                'EMAIL_REQUIRED, FIELD_REQUIRED, INVALID_EMAIL, INVALID_FIELD, INVALID_JSON, INVALID_FORM, INVALID_HOST, INVALID_IDEMPOTENCY_KEY' +
                (endpoint.workEmailOnly ? ', WORK_EMAIL_REQUIRED' : ''),
            },
          ),
        },
      },
    };
  }
  return paths;
}

const text = (type: string) => ({ [type]: { schema: { type: 'string' } } });
const cached = {
  ETag: { description: 'Strong validator; send it back in If-None-Match', schema: { type: 'string' } },
  'Cache-Control': { description: 'How long caches may keep the file', schema: { type: 'string' } },
};
const notModified = { '304': { description: 'Not modified since the ETag sent in If-None-Match.' } };
/** Said of every file made once at start-up from the content source. */
const STATIC_FILE =
  'Rendered once at start-up from the one content source, so it agrees with the MCP server and the other discovery files. Cached for an hour with a strong ETag: send it back in If-None-Match for a 304.';

function staticPaths(): Record<string, Json> {
  const paths: Record<string, Json> = {};
  for (const file of DISCOVERY_FILES) {
    const type = file.contentType.split(';')[0]!;
    paths[file.path] = {
      get: {
        operationId: operationId(file.path, 'get'),
        summary: file.summary,
        description: STATIC_FILE,
        tags: ['discovery'],
        responses: {
          '200': {
            description: file.summary,
            headers: cached,
            content: type === 'application/json' ? json({ type: 'object' }) : text(type),
          },
          ...notModified,
        },
      },
    };
  }
  paths['/.well-known/agent-skills/{name}/SKILL.md'] = {
    get: {
      operationId: 'getAgentSkill',
      summary: 'One agent skill document, as listed (with its sha256 digest) in the agent-skills index',
      description: `A SKILL.md with name and description front matter; its sha256 is the digest the index lists. ${STATIC_FILE}`,
      tags: ['discovery'],
      parameters: [
        { name: 'name', in: 'path', required: true, schema: { type: 'string', enum: [...AGENT_SKILL_NAMES] } },
      ],
      responses: {
        '200': { description: 'The SKILL.md document', headers: cached, content: text('text/markdown') },
        ...notModified,
        '404': { description: 'No such skill (`NOT_FOUND`).', content: json(ref('Error')) },
      },
    },
  };
  paths['/ui/{name}.html'] = {
    get: {
      operationId: 'getWidget',
      summary: 'An MCP Apps widget as a self-contained HTML page (also served inline as ui://service/{name})',
      description: `The same HTML the MCP resource ui://service/{name} holds; script and style are allowed by hash in its Content-Security-Policy. ${STATIC_FILE}`,
      tags: ['agents'],
      parameters: [{ name: 'name', in: 'path', required: true, schema: { type: 'string', enum: [...WIDGET_NAMES] } }],
      responses: {
        '200': {
          description: 'The widget; its Content-Security-Policy lets ChatGPT and Claude frame it.',
          headers: {
            ...cached,
            'Content-Security-Policy': {
              description: 'frame-ancestors names the chat assistants',
              schema: { type: 'string' },
            },
          },
          content: text('text/html'),
        },
        ...notModified,
        '404': { description: 'No such widget (`NOT_FOUND`).', content: json(ref('Error')) },
      },
    },
  };
  paths['/openapi.json'] = {
    get: {
      operationId: 'getOpenApi',
      summary: 'This OpenAPI 3.1 description',
      description: `Generated from the same valibot schemas the gateway validates with, so a request that validates against it is judged as it says. ${STATIC_FILE}`,
      tags: ['discovery'],
      responses: {
        '200': { description: 'The description', headers: cached, content: json({ type: 'object' }) },
        ...notModified,
      },
    },
  };
  paths['/docs'] = {
    get: {
      operationId: 'getDocs',
      summary: 'API reference page made from this description; error codes at /docs#errors',
      description: `Every operation and every error code of this description, as one HTML page with no script. ${STATIC_FILE}`,
      tags: ['discovery'],
      responses: {
        '200': { description: 'HTML reference', headers: cached, content: text('text/html') },
        ...notModified,
      },
    },
  };
  return paths;
}

function agentPaths(): Record<string, Json> {
  const mcpErrors = (statuses: number[], extra: Partial<Record<number, string>> = {}) =>
    errorResponses(statuses, 'simple', extra);
  return {
    '/api/mcp': {
      get: {
        operationId: 'describeMcpServer',
        summary: 'Describe the MCP server (transport, protocol versions, serverInfo)',
        description:
          'Answers JSON for a client that accepts it. A client asking for `text/event-stream` gets 405: the server is stateless and offers no stream.',
        tags: ['agents'],
        responses: {
          '200': { description: 'The descriptor', content: json(ref('McpDescriptor')) },
          ...mcpErrors([403, 405], { 405: '`METHOD_NOT_ALLOWED`: no event stream is offered; POST JSON-RPC messages' }),
        },
      },
      post: {
        operationId: 'callMcp',
        summary: 'Send one JSON-RPC 2.0 message to the MCP server (Streamable HTTP, stateless)',
        description: `Methods: ${MCP_METHODS.join(', ')}. Protocol versions: ${MCP_PROTOCOL_VERSIONS.join(', ')}. No Mcp-Session-Id is issued.`,
        tags: ['agents'],
        requestBody: { required: true, content: json(ref('JsonRpcRequest')) },
        responses: {
          '200': {
            description:
              'The JSON-RPC response (a result, or a JSON-RPC error for an unknown method, tool or resource)',
            content: json(ref('JsonRpcResponse')),
          },
          '202': { description: 'A notification was accepted; no body.' },
          ...mcpErrors([400, 403, 405, 413, 415, 500], {
            400: '`INVALID_JSON`, `INVALID_JSONRPC_REQUEST`, `UNSUPPORTED_PROTOCOL_VERSION`, `INVALID_HOST`',
          }),
        },
      },
      delete: {
        operationId: 'deleteMcpSession',
        summary: 'End a session: there is none, so this always succeeds',
        description:
          'The server is stateless and never issues an Mcp-Session-Id, so there is nothing to end; a client that sends DELETE on closing gets 204.',
        tags: ['agents'],
        responses: { '204': { description: 'No content.' }, ...mcpErrors([403]) },
      },
    },
    '/api/latest-video': {
      get: {
        operationId: 'getLatestVideo',
        summary: "The newest video of the operator's channel, from its public Atom feed",
        description:
          'Cached for an hour at the edge and on the server. When the feed fails, the last good answer is served (with a short cache lifetime) if there is one.',
        tags: ['video'],
        responses: {
          '200': {
            description: 'The newest video',
            headers: {
              'Cache-Control': { description: 'One hour at the edge for a fresh answer', schema: { type: 'string' } },
            },
            content: json(ref('LatestVideo')),
          },
          ...mcpErrors([405, 502]),
        },
      },
    },
    '/healthz': {
      get: {
        operationId: 'getHealth',
        summary: 'The process is up',
        description: 'Liveness: answers 200 while the gateway process runs, whatever the state of Redis.',
        tags: ['health'],
        responses: { '200': { description: 'Up', content: json(ref('Health')) } },
      },
    },
    '/readyz': {
      get: {
        operationId: 'getReadiness',
        summary: 'Redis answers, so submissions can be accepted',
        description:
          "Readiness: 200 when Redis answers a PING within the enqueue deadline, else 503, so a load balancer can send traffic elsewhere; also 503, with a `reason` naming the variable, while this gateway's ID_KEY differs from the one the other gateways recorded.",
        tags: ['health'],
        responses: {
          '200': { description: 'Ready', content: json(ref('Readiness')) },
          '503': {
            description: "Redis does not answer, or this gateway's ID_KEY differs from the others'",
            content: json(ref('Readiness')),
          },
        },
      },
    },
  };
}

/**
 * /openapi.json, made from the schemas package: the submission table, the error table, the agent surface.
 * Nothing here restates a field: every schema is converted from its valibot definition.
 */
export function buildOpenApi({ baseUrl, contactEmail }: { baseUrl: string; contactEmail?: string }): Json {
  return {
    openapi: '3.1.0',
    info: {
      title: 'Form-submission and agent-discovery API',
      version: API_VERSION,
      summary:
        'Public submissions for a creator-led marketing agency, a latest-video helper, an MCP server and discovery files.',
      description:
        'Every endpoint is public and unauthenticated. Submissions take `Content-Type: application/json` and are acknowledged once queued. ' +
        'Retry 5xx answers with exponential backoff. Errors use `{error, code, message, documentation}`; careers-apply, latest-video and ' +
        '/api/mcp use `{error, message}`. The full code table is under `x-error-codes` and at /docs#errors.',
      ...(contactEmail ? { contact: { email: contactEmail } } : {}),
      license: { name: 'Proprietary', identifier: 'LicenseRef-Proprietary' },
    },
    servers: [{ url: baseUrl }],
    security: [],
    tags: [
      { name: 'submissions', description: 'Marketing-site forms' },
      { name: 'agents', description: 'MCP server and widgets' },
      { name: 'video', description: 'Latest video' },
      { name: 'discovery', description: 'Files for agents and crawlers' },
      { name: 'health', description: 'Liveness and readiness' },
    ],
    paths: { ...submissionPaths(), ...agentPaths(), ...staticPaths() },
    components: { schemas: componentSchemas() },
    'x-error-codes': errorCodeTable(),
  };
}
