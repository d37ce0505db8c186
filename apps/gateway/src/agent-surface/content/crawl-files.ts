import { DISCOVERY_FILES } from '@forms/schemas';
import { widgetNames } from './agent-catalogue.ts';
import type { SiteContent } from './content.ts';

/** sitemap.xml: every public document an agent or a crawler may want. */
export function renderSitemapXml(c: SiteContent): string {
  const paths = [
    '/docs',
    '/openapi.json',
    ...DISCOVERY_FILES.map((f) => f.path).filter((p) => p !== '/sitemap.xml' && p !== '/robots.txt'),
    ...widgetNames(c).map((name) => `/ui/${name}.html`),
  ];
  const escapeXml = (s: string) => s.replace(/&/g, '&amp;').replace(/</g, '&lt;');
  return [
    '<?xml version="1.0" encoding="UTF-8"?>',
    '<urlset xmlns="http://www.sitemaps.org/schemas/sitemap/0.9">',
    ...paths.map((p) => `  <url><loc>${escapeXml(c.baseUrl + p)}</loc></url>`),
    '</urlset>',
    '',
  ].join('\n');
}

/** AI crawlers grouped by what they fetch for; all may read the public documents, none the API. */
const AI_CRAWLERS: { purpose: string; agents: string[] }[] = [
  {
    purpose: 'Model training',
    agents: ['GPTBot', 'ClaudeBot', 'Google-Extended', 'Applebot-Extended', 'CCBot', 'Meta-ExternalAgent'],
  },
  { purpose: 'AI search indexing', agents: ['OAI-SearchBot', 'Claude-SearchBot', 'PerplexityBot'] },
  { purpose: 'Fetches a user asked for in a chat', agents: ['ChatGPT-User', 'Claude-User', 'Perplexity-User'] },
];

export function renderRobotsTxt(c: SiteContent): string {
  const group = (agents: string[]) => [...agents.map((a) => `User-agent: ${a}`), 'Allow: /', 'Disallow: /api/', ''];
  return [
    `# ${c.name}. The documents for agents are listed in /llms.txt; the MCP server is at /api/mcp.`,
    '# The form endpoints under /api/ are for people and the agents they ask, not for crawling.',
    '',
    ...AI_CRAWLERS.flatMap(({ purpose, agents }) => [`# ${purpose}`, ...group(agents)]),
    '# Everyone else',
    ...group(['*']),
    `Sitemap: ${c.baseUrl}/sitemap.xml`,
    '',
  ].join('\n');
}
