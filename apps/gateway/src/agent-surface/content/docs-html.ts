import { readContentFile } from './content-files.ts';
import { escapeHtml as e } from './html.ts';

// biome-ignore lint/suspicious/noExplicitAny: walks a generated OpenAPI document of any shape
type Json = Record<string, any>;

function schemaName(schema: Json | undefined): string {
  if (!schema) return '';
  if (schema.$ref) {
    const name = String(schema.$ref).split('/').pop()!;
    return `<a href="#schema-${e(name)}">${e(name)}</a>`;
  }
  return e(schema.type ?? 'any');
}

function typeOf(schema: Json): string {
  if (schema.$ref) return schemaName(schema);
  if (schema.anyOf) return (schema.anyOf as Json[]).map(typeOf).join(' or ');
  if (schema.enum) return (schema.enum as unknown[]).map((v) => `<code>${e(String(v))}</code>`).join(' | ');
  if (schema.const !== undefined) return `<code>${e(JSON.stringify(schema.const))}</code>`;
  if (schema.type === 'array') return `array of ${typeOf(schema.items ?? {})}`;
  const format = schema.format ? ` (${e(schema.format)})` : '';
  return `${e(String(schema.type ?? 'any'))}${format}`;
}

function operations(doc: Json): string {
  const out: string[] = [];
  for (const [path, item] of Object.entries<Json>(doc.paths)) {
    for (const [method, op] of Object.entries<Json>(item)) {
      const body = op.requestBody?.content?.['application/json']?.schema;
      const rows = Object.entries<Json>(op.responses)
        .map(([status, res]) => {
          const [type, media] = Object.entries<Json>(res.content ?? {})[0] ?? [];
          return `<tr><td>${e(status)}</td><td>${e(res.description ?? '')}</td><td>${type ? `${e(type)} ${schemaName(media?.schema)}` : ''}</td></tr>`;
        })
        .join('');
      out.push(`<h3 id="${e(op.operationId)}"><span class="method">${e(method)}</span> <code>${e(path)}</code></h3>
<p>${e(op.summary ?? '')}${op.description ? ` ${e(op.description)}` : ''}</p>
${body ? `<p>Request body: ${schemaName(body)}</p>` : ''}
<table><tr><th>Status</th><th>When</th><th>Body</th></tr>${rows}</table>`);
    }
  }
  return out.join('\n');
}

function schemas(doc: Json): string {
  return Object.entries<Json>(doc.components.schemas)
    .map(([name, schema]) => {
      const required = new Set<string>(schema.required ?? []);
      const rows = Object.entries<Json>(schema.properties ?? {})
        .map(
          ([prop, s]) =>
            `<tr><td><code>${e(prop)}</code></td><td>${typeOf(s)}</td><td>${required.has(prop) ? 'yes' : 'no'}</td><td>${e(s.description ?? '')}</td></tr>`,
        )
        .join('');
      return `<h3 id="schema-${e(name)}">${e(name)}</h3>
${rows ? `<table><tr><th>Field</th><th>Type</th><th>Required</th><th>Notes</th></tr>${rows}</table>` : `<p>${typeOf(schema)}</p>`}`;
    })
    .join('\n');
}

/** /docs: the API reference, rendered from /openapi.json (never written separately), with an #errors anchor. */
export function renderDocsHtml(doc: Json): { html: string; style: string } {
  const style = readContentFile('documents/docs.css');
  const errors = (doc['x-error-codes'] as Json[])
    .map(
      (row) =>
        `<tr id="${e(row.code)}"><td>${row.status}</td><td><code>${e(row.code)}</code></td><td><code>${e(row.error)}</code></td><td>${e(row.message)}</td></tr>`,
    )
    .join('');
  const html = `<!doctype html>
<html lang="en">
<head><meta charset="utf-8"><meta name="viewport" content="width=device-width, initial-scale=1">
<title>${e(doc.info.title)}: API reference</title><style>${style}</style></head>
<body>
<h1>${e(doc.info.title)}</h1>
<p>Version ${e(doc.info.version)}. Base URL <code>${e(doc.servers[0].url)}</code>. ${e(doc.info.description)}</p>
<p>Machine-readable: <a href="/openapi.json">/openapi.json</a>. For agents: <a href="/llms.txt">/llms.txt</a>, <a href="/agents.md">/agents.md</a>.</p>
<nav><a href="#endpoints">Endpoints</a> · <a href="#errors">Errors</a> · <a href="#schemas">Schemas</a></nav>
<h2 id="endpoints">Endpoints</h2>
${operations(doc)}
<h2 id="errors">Errors</h2>
<p>The structured envelope is <code>{error, code, message, documentation}</code> (plus <code>field</code> when a field is at fault); careers-apply, latest-video and /api/mcp answer <code>{error, message}</code> with the code in <code>error</code>. Retry 5xx answers with exponential backoff.</p>
<table><tr><th>Status</th><th>Code</th><th><code>error</code></th><th>Message and fix</th></tr>${errors}</table>
<h2 id="schemas">Schemas</h2>
${schemas(doc)}
</body>
</html>
`;
  return { html, style };
}
