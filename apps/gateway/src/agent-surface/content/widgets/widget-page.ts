import type { WidgetName } from '@forms/schemas';
import { readContentFile } from '../content-files.ts';
import { escapeHtml, scriptJson } from '../html.ts';
import { widgetCsp } from './widget-csp.ts';

export type WidgetPage = { html: string; csp: string };

/** A widget file to inline; a closing tag inside it would end the element early, so start-up refuses it. */
function inlineable(file: string, element: 'script' | 'style'): string {
  const text = readContentFile(file);
  if (text.toLowerCase().includes(`</${element}`)) throw new Error(`content file ${file} contains </${element}>`);
  return text;
}

/**
 * A self-contained page: one inline style, one inline script (both allowed by hash), no external loads.
 * The script is the widget's `data` as `const DATA`, then `widgets/host-bridge.js`, then `widgets/<name>.js`;
 * the style is `widgets/widget.css`. Both are read at start-up and hashed as served.
 */
export function widgetPage({
  name,
  title,
  body,
  data,
  origin,
}: {
  name: WidgetName;
  title: string;
  body: string;
  data?: unknown;
  origin: string;
}): WidgetPage {
  const style = inlineable('widgets/widget.css', 'style');
  const js = [
    data === undefined ? '' : `const DATA = ${scriptJson(data)};`,
    inlineable('widgets/host-bridge.js', 'script'),
    inlineable(`widgets/${name}.js`, 'script'),
  ]
    .filter(Boolean)
    .join('\n');
  const html = [
    '<!doctype html>',
    '<html lang="en">',
    '<head>',
    '<meta charset="utf-8">',
    '<meta name="viewport" content="width=device-width, initial-scale=1">',
    `<title>${escapeHtml(title)}</title>`,
    // An empty icon: otherwise the browser asks for /favicon.ico, which a sandboxed host may not allow.
    '<link rel="icon" href="data:,">',
    `<style>${style}</style>`,
    '</head>',
    '<body>',
    body.trim(),
    `<script>${js}</script>`,
    '</body>',
    '</html>',
    '',
  ].join('\n');
  return { html, csp: widgetCsp({ origin, script: js, style }) };
}
