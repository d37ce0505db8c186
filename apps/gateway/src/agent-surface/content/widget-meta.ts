import type { WidgetResourceEntry } from './agent-catalogue.ts';
import type { SiteContent } from './content.ts';

/**
 * `_meta` of a ui:// resource: the MCP Apps `ui` block (CSP domains the widget needs, where the same
 * HTML is served) and the ChatGPT Apps SDK equivalents, which ChatGPT still reads.
 */
export function widgetResourceMeta(c: SiteContent, widget: WidgetResourceEntry): Record<string, unknown> {
  const origin = new URL(c.baseUrl).origin;
  return {
    ui: { csp: { connectDomains: [origin], resourceDomains: [] }, prefersBorder: true, url: widget.url },
    'openai/widgetCSP': { connect_domains: [origin], resource_domains: [] },
    'openai/widgetPrefersBorder': true,
    'openai/widgetDescription': widget.description,
  };
}
