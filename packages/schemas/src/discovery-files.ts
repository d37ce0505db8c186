/**
 * The static files the service publishes for agents and crawlers: path, content type and purpose. The
 * gateway serves exactly these (it fails to compile if one lacks a generator) and /openapi.json lists them.
 */
export const DISCOVERY_FILES = [
  {
    path: '/llms.txt',
    contentType: 'text/plain; charset=utf-8',
    summary: 'Product summary for LLMs (llmstxt.org format)',
  },
  { path: '/llms-full.txt', contentType: 'text/plain; charset=utf-8', summary: 'Full product documentation for LLMs' },
  { path: '/pricing.md', contentType: 'text/markdown; charset=utf-8', summary: 'Outcome-based pricing approach' },
  {
    path: '/agents.md',
    contentType: 'text/markdown; charset=utf-8',
    summary: 'Agent integration and authentication guide',
  },
  {
    path: '/comparisons.md',
    contentType: 'text/markdown; charset=utf-8',
    summary: 'How the agency compares with other ways to run creator marketing',
  },
  { path: '/.well-known/agent-card.json', contentType: 'application/json', summary: 'A2A agent card' },
  {
    path: '/.well-known/agent-skills/index.json',
    contentType: 'application/json',
    summary: 'Agent skills index with when-to-use guidance and sha256 digests',
  },
  {
    path: '/.well-known/mcp/manifest.json',
    contentType: 'application/json',
    summary: 'MCP manifest, with the ui:// resources',
  },
  { path: '/ai-plugin.json', contentType: 'application/json', summary: 'AI plugin manifest pointing at /openapi.json' },
  { path: '/sitemap.xml', contentType: 'application/xml; charset=utf-8', summary: 'Sitemap of the public documents' },
  {
    path: '/robots.txt',
    contentType: 'text/plain; charset=utf-8',
    summary: 'Crawler rules, AI crawlers named by purpose',
  },
] as const;
export type DiscoveryPath = (typeof DISCOVERY_FILES)[number]['path'];

/** The skill documents the agent-skills index points to, at /.well-known/agent-skills/<name>/SKILL.md. */
export const AGENT_SKILL_NAMES = ['explore-services', 'contact-the-agency', 'request-a-resource'] as const;
export type AgentSkillName = (typeof AGENT_SKILL_NAMES)[number];

/** MCP Apps widgets: `ui://service/<name>` resources, served as HTML at /ui/<name>.html. */
export const WIDGET_NAMES = ['services', 'contact-form', 'case-studies'] as const;
/** Published only when pricing is configured. */
export const PRICING_WIDGET_NAME = 'pricing-calculator';
export type WidgetName = (typeof WIDGET_NAMES)[number] | typeof PRICING_WIDGET_NAME;
