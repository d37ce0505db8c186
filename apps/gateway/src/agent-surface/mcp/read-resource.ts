import { McpError, type ReadResourceResult, type Resource } from '@modelcontextprotocol/sdk/types.js';
import { textResources, widgetResources } from '../content/agent-catalogue.ts';
import type { Site } from '../content/site.ts';
import { widgetResourceMeta } from '../content/widget-meta.ts';

/** JSON-RPC code for an unknown resource, as the MCP spec names it. */
const RESOURCE_NOT_FOUND = -32002;

export function listResources(site: Site): Resource[] {
  const c = site.content;
  return [
    ...textResources(c).map(({ uri, name, title, description, mimeType }) => ({
      uri,
      name,
      title,
      description,
      mimeType,
    })),
    ...widgetResources(c).map((w) => ({
      uri: w.uri,
      name: w.name,
      title: w.title,
      description: w.description,
      mimeType: w.mimeType,
      _meta: widgetResourceMeta(c, w),
    })),
  ];
}

/** resources/read: the same bytes the HTTP routes serve, so a resource and its URL never differ. */
export function readResource(site: Site, uri: string): ReadResourceResult {
  const c = site.content;
  const text = textResources(c).find((r) => r.uri === uri);
  if (text) return { contents: [{ uri, mimeType: text.mimeType, text: site.files.get(text.path)!.body }] };
  const widget = widgetResources(c).find((w) => w.uri === uri);
  if (widget) {
    return {
      contents: [
        {
          uri,
          mimeType: widget.mimeType,
          text: site.widgets.get(widget.name)!.html,
          _meta: widgetResourceMeta(c, widget),
        },
      ],
    };
  }
  throw new McpError(
    RESOURCE_NOT_FOUND,
    `Resource not found: ${uri}. Call resources/list for the resources on offer.`,
    { uri },
  );
}
