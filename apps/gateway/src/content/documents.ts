import { ERROR_CODES, MCP_PROTOCOL_VERSIONS, type ErrorCode } from '@forms/schemas';
import { textResources, toolCatalogue, widgetResources } from './agent-catalogue.ts';
import type { SiteContent } from './content.ts';
import { caseStudyMarkdown, comparisonMarkdown, endpointsMarkdown, pricingMarkdown, serviceMarkdown } from './markdown.ts';
import { llmsIntro } from './llms-txt.ts';

/** The Markdown and plain-text documents: llms-full.txt, pricing.md, agents.md, comparisons.md. */

function mcpMarkdown(c: SiteContent): string {
  return [
    `Endpoint: \`${c.baseUrl}/api/mcp\` (Streamable HTTP, JSON-RPC 2.0, stateless: no session id, no event stream; GET with \`Accept: application/json\` describes the server).`,
    `Protocol versions: ${MCP_PROTOCOL_VERSIONS.join(', ')}.`,
    '',
    'Tools (all read-only):',
    '',
    ...toolCatalogue(c).map((t) => `- \`${t.name}\`: ${t.description}${t.widget ? ` Widget: \`ui://service/${t.widget}\`.` : ''}`),
    '',
    'Resources:',
    '',
    ...textResources(c).map((r) => `- \`${r.uri}\` (${r.mimeType}): ${r.description}`),
    ...widgetResources(c).map((r) => `- \`${r.uri}\` (${r.mimeType}): ${r.description} Also at ${r.url}.`),
  ].join('\n');
}

function errorsMarkdown(): string {
  return [
    '| Status | Code | Meaning |',
    '| --- | --- | --- |',
    ...(Object.keys(ERROR_CODES) as ErrorCode[]).map((code) => `| ${ERROR_CODES[code].status} | ${code} | ${ERROR_CODES[code].message()} |`),
  ].join('\n');
}

export function renderPricingMd(c: SiteContent): string {
  return [`# Pricing: ${c.name}`, '', pricingMarkdown(c), ''].join('\n');
}

export function renderComparisonsMd(c: SiteContent): string {
  return [`# ${c.name} compared`, '', c.comparisonsIntro, '', ...c.comparisons.flatMap((cmp) => [comparisonMarkdown(cmp), '']), `Questions: ${c.contactEmail}.`, ''].join('\n');
}

export function renderAgentsMd(c: SiteContent): string {
  return [
    `# Agent guide: ${c.name}`,
    '',
    c.summary,
    '',
    '## Authentication',
    '',
    ...c.agentNotes.authentication.map((line) => `- ${line}`),
    '',
    '## MCP server',
    '',
    mcpMarkdown(c),
    '',
    '## HTTP API',
    '',
    `Submissions take \`Content-Type: application/json\` and answer 200 once the submission is queued. Full schemas: ${c.baseUrl}/openapi.json (reference page: ${c.baseUrl}/docs).`,
    '',
    endpointsMarkdown(c),
    '',
    'Example:',
    '',
    '```http',
    `POST ${c.baseUrl}/api/contact`,
    'Content-Type: application/json',
    '',
    '{"email": "name@brand.example", "name": "Sam Example", "userType": "brand", "message": "We would like to run creator partnership ads."}',
    '```',
    '',
    '## Errors',
    '',
    `Errors are \`{error, code, message, documentation}\`; careers-apply, latest-video and /api/mcp answer \`{error, message}\`. The message names the field at fault and the fix. Codes: ${c.baseUrl}/docs#errors.`,
    '',
    '## Events',
    '',
    c.agentNotes.events,
    '',
    '## Etiquette',
    '',
    ...c.agentNotes.etiquette.map((line) => `- ${line}`),
    '',
  ].join('\n');
}

export function renderLlmsFullTxt(c: SiteContent): string {
  return [
    ...llmsIntro(c),
    '## How we work',
    '',
    ...c.howWeWork.map((step, i) => `${i + 1}. ${step}`),
    '',
    '## Services',
    '',
    ...c.services.flatMap((s) => [serviceMarkdown(s), '']),
    '## Case studies',
    '',
    c.caseStudiesNote,
    '',
    ...c.caseStudies.flatMap((cs) => [caseStudyMarkdown(cs, c), '']),
    '## Pricing',
    '',
    pricingMarkdown(c),
    '',
    '## Comparisons',
    '',
    c.comparisonsIntro,
    '',
    ...c.comparisons.flatMap((cmp) => [comparisonMarkdown(cmp).replace(/^## /, '### '), '']),
    '## For creators',
    '',
    c.forCreators,
    '',
    '## Other forms',
    '',
    ...c.otherForms.map((f) => `- ${f.title}: ${f.description}`),
    '',
    '## API',
    '',
    endpointsMarkdown(c),
    '',
    '## MCP server',
    '',
    mcpMarkdown(c),
    '',
    '## Authentication and events',
    '',
    ...c.agentNotes.authentication.map((line) => `- ${line}`),
    `- ${c.agentNotes.events}`,
    '',
    '## Errors',
    '',
    errorsMarkdown(),
    '',
    `## Contact`,
    '',
    `Email ${c.contactEmail}, or use the contact form at ${c.baseUrl}/ui/contact-form.html.`,
    '',
  ].join('\n');
}
