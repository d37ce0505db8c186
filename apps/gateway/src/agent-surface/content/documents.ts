import { ERROR_CODES, type ErrorCode, MCP_PROTOCOL_VERSIONS } from '@forms/schemas';
import { textResources, toolCatalogue, widgetResources } from './agent-catalogue.ts';
import type { SiteContent } from './content.ts';
import { fillTemplate } from './content-files.ts';
import { llmsIntro } from './llms-txt.ts';
import {
  caseStudyMarkdown,
  comparisonMarkdown,
  endpointsMarkdown,
  pricingMarkdown,
  serviceMarkdown,
} from './markdown.ts';

/**
 * The Markdown and plain-text documents: llms-full.txt, pricing.md, agents.md, comparisons.md. Their text is
 * `documents/<name>.md`; the slots filled here are the parts drawn from the content data and the catalogues.
 */

const bullets = (lines: string[]) => lines.map((line) => `- ${line}`).join('\n');
const blocks = (parts: string[]) => parts.join('\n\n');

/** The MCP section agents.md and llms-full.txt share; trimmed, as they set the blank lines around it. */
function mcpMarkdown(c: SiteContent): string {
  return fillTemplate('documents/mcp-server.md', {
    baseUrl: c.baseUrl,
    protocolVersions: MCP_PROTOCOL_VERSIONS.join(', '),
    tools: toolCatalogue(c)
      .map((t) => `- \`${t.name}\`: ${t.description}${t.widget ? ` Widget: \`ui://service/${t.widget}\`.` : ''}`)
      .join('\n'),
    resources: [
      ...textResources(c).map((r) => `- \`${r.uri}\` (${r.mimeType}): ${r.description}`),
      ...widgetResources(c).map((r) => `- \`${r.uri}\` (${r.mimeType}): ${r.description} Also at ${r.url}.`),
    ].join('\n'),
  }).trimEnd();
}

function errorsMarkdown(): string {
  return [
    '| Status | Code | Meaning |',
    '| --- | --- | --- |',
    ...(Object.keys(ERROR_CODES) as ErrorCode[]).map(
      (code) => `| ${ERROR_CODES[code].status} | ${code} | ${ERROR_CODES[code].message()} |`,
    ),
  ].join('\n');
}

export function renderPricingMd(c: SiteContent): string {
  return fillTemplate('documents/pricing.md', { name: c.name, pricing: pricingMarkdown(c) });
}

export function renderComparisonsMd(c: SiteContent): string {
  return fillTemplate('documents/comparisons.md', {
    name: c.name,
    comparisonsIntro: c.comparisonsIntro,
    comparisons: blocks(c.comparisons.map(comparisonMarkdown)),
    contactEmail: c.contactEmail,
  });
}

export function renderAgentsMd(c: SiteContent): string {
  return fillTemplate('documents/agents.md', {
    name: c.name,
    baseUrl: c.baseUrl,
    summary: c.summary,
    authentication: bullets(c.agentNotes.authentication),
    mcp: mcpMarkdown(c),
    endpoints: endpointsMarkdown(c),
    events: c.agentNotes.events,
    etiquette: bullets(c.agentNotes.etiquette),
  });
}

export function renderLlmsFullTxt(c: SiteContent): string {
  return fillTemplate('documents/llms-full.md', {
    intro: llmsIntro(c),
    baseUrl: c.baseUrl,
    contactEmail: c.contactEmail,
    howWeWork: c.howWeWork.map((step, i) => `${i + 1}. ${step}`).join('\n'),
    services: blocks(c.services.map(serviceMarkdown)),
    caseStudiesNote: c.caseStudiesNote,
    caseStudies: blocks(c.caseStudies.map((cs) => caseStudyMarkdown(cs, c))),
    pricing: pricingMarkdown(c),
    comparisonsIntro: c.comparisonsIntro,
    comparisons: blocks(c.comparisons.map((cmp) => comparisonMarkdown(cmp).replace(/^## /, '### '))),
    forCreators: c.forCreators,
    otherForms: bullets(c.otherForms.map((f) => `${f.title}: ${f.description}`)),
    endpoints: endpointsMarkdown(c),
    mcp: mcpMarkdown(c),
    authenticationAndEvents: bullets([...c.agentNotes.authentication, c.agentNotes.events]),
    errors: errorsMarkdown(),
  });
}
