import type { SiteContent } from './content.ts';

/** /llms.txt in the llmstxt.org shape: H1, a blockquote summary, then H2 sections of annotated links. */
export function renderLlmsTxt(c: SiteContent): string {
  const base = c.baseUrl;
  return [
    ...llmsIntro(c),
    `Contact: ${c.contactEmail}. Pricing: ${c.pricing.approach}`,
    '',
    '## Services',
    '',
    ...c.services.map((s) => `- [${s.name}](${base}/llms-full.txt): ${s.kind}. ${s.summary}`),
    '',
    '## For agents',
    '',
    `- [MCP server](${base}/api/mcp): stateless Streamable HTTP, no authentication; tools list_services, show_services, show_contact_form, show_case_studies`,
    `- [Agent guide](${base}/agents.md): how to integrate, authentication, etiquette`,
    `- [OpenAPI 3.1](${base}/openapi.json): every endpoint, schema and error code`,
    `- [API reference](${base}/docs): the same, as a page`,
    `- [Agent card](${base}/.well-known/agent-card.json): A2A agent card`,
    `- [Agent skills](${base}/.well-known/agent-skills/index.json): skills with when-to-use guidance`,
    '',
    '## Docs',
    '',
    `- [Pricing](${base}/pricing.md): ${c.pricing.approach}`,
    `- [Comparisons](${base}/comparisons.md): in-house teams, platforms, per-post agencies, gifting and brand-handle ads compared`,
    `- [Contact form](${base}/ui/contact-form.html): sends a message to the team`,
    `- [Case studies](${base}/ui/case-studies.html): illustrative engagement shapes`,
    '',
    '## Optional',
    '',
    `- [Full documentation](${base}/llms-full.txt): everything above in one file`,
    `- [Sitemap](${base}/sitemap.xml)`,
    '',
  ].join('\n');
}

/** The opening both /llms.txt and /llms-full.txt share: the H1, the blockquote summary, the about text. */
export function llmsIntro(c: SiteContent): string[] {
  return [`# ${c.name}`, '', `> ${c.summary}`, '', ...c.about.flatMap((p) => [p, ''])];
}
