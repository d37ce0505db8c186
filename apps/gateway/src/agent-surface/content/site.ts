import { createHash } from 'node:crypto';
import { buildOpenApi, DISCOVERY_FILES, type DiscoveryPath, type WidgetName } from '@forms/schemas';
import type { GatewayConfig } from '../../config.ts';
import { widgetNames } from './agent-catalogue.ts';
import { renderSkillFiles, renderSkillsIndex } from './agent-skills.ts';
import { type SiteContent, siteContent } from './content.ts';
import { renderRobotsTxt, renderSitemapXml } from './crawl-files.ts';
import { renderDocsHtml } from './docs-html.ts';
import { renderAgentsMd, renderComparisonsMd, renderLlmsFullTxt, renderPricingMd } from './documents.ts';
import { renderLlmsTxt } from './llms-txt.ts';
import { renderAgentCard, renderAiPlugin, renderMcpManifest } from './manifests.ts';
import { caseStudiesWidget } from './widgets/case-studies-widget.ts';
import { contactFormWidget } from './widgets/contact-form-widget.ts';
import { pricingCalculatorWidget } from './widgets/pricing-calculator-widget.ts';
import { servicesWidget } from './widgets/services-widget.ts';
import { sha256Source } from './widgets/widget-csp.ts';
import type { WidgetPage } from './widgets/widget-page.ts';

export type PublishedFile = { path: string; contentType: string; body: string; etag: string; csp?: string };

/** Everything the agent surface publishes, rendered once at start-up from the content source. */
export type Site = {
  content: SiteContent;
  openapi: Record<string, unknown>;
  files: ReadonlyMap<string, PublishedFile>;
  widgets: ReadonlyMap<WidgetName, WidgetPage>;
};

function published(path: string, contentType: string, body: string, csp?: string): PublishedFile {
  const etag = `"${createHash('sha256').update(body).digest('base64url').slice(0, 27)}"`;
  return { path, contentType, body, etag, ...(csp ? { csp } : {}) };
}

const json = (value: unknown) => `${JSON.stringify(value, null, 2)}\n`;

export function buildSite(config: GatewayConfig): Site {
  const content = siteContent(config);
  const origin = new URL(content.baseUrl).origin;
  const openapi = buildOpenApi({ baseUrl: content.baseUrl, contactEmail: content.contactEmail });
  const skillFiles = renderSkillFiles(content);

  // Keyed by the schemas package's list: a discovery file without a generator fails to compile.
  const generators: Record<DiscoveryPath, () => string> = {
    '/llms.txt': () => renderLlmsTxt(content),
    '/llms-full.txt': () => renderLlmsFullTxt(content),
    '/pricing.md': () => renderPricingMd(content),
    '/agents.md': () => renderAgentsMd(content),
    '/comparisons.md': () => renderComparisonsMd(content),
    '/.well-known/agent-card.json': () => json(renderAgentCard(content)),
    '/.well-known/agent-skills/index.json': () => json(renderSkillsIndex(content, skillFiles)),
    '/.well-known/mcp/manifest.json': () => json(renderMcpManifest(content)),
    '/ai-plugin.json': () => json(renderAiPlugin(content)),
    '/sitemap.xml': () => renderSitemapXml(content),
    '/robots.txt': () => renderRobotsTxt(content),
  };

  const widgetRenderers: Record<WidgetName, () => WidgetPage> = {
    services: () => servicesWidget(content, origin),
    'contact-form': () => contactFormWidget(content, origin),
    'case-studies': () => caseStudiesWidget(content, origin),
    'pricing-calculator': () => pricingCalculatorWidget(content, origin),
  };
  const widgets = new Map(widgetNames(content).map((name) => [name, widgetRenderers[name]()] as const));

  const docs = renderDocsHtml(openapi);
  const files = new Map<string, PublishedFile>();
  for (const file of DISCOVERY_FILES)
    files.set(file.path, published(file.path, file.contentType, generators[file.path]()));
  for (const skill of skillFiles)
    files.set(skill.path, published(skill.path, 'text/markdown; charset=utf-8', skill.body));
  for (const [name, page] of widgets)
    files.set(`/ui/${name}.html`, published(`/ui/${name}.html`, 'text/html; charset=utf-8', page.html, page.csp));
  files.set('/openapi.json', published('/openapi.json', 'application/json', json(openapi)));
  files.set(
    '/docs',
    published(
      '/docs',
      'text/html; charset=utf-8',
      docs.html,
      `default-src 'none'; style-src ${sha256Source(docs.style)}; base-uri 'none'; form-action 'none'; frame-ancestors 'self'`,
    ),
  );
  return { content, openapi, files, widgets };
}
