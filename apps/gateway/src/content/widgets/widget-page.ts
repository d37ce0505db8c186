import { escapeHtml, scriptJson } from '../html.ts';
import { widgetCsp } from './widget-csp.ts';

const STYLE = `
:root{color-scheme:light dark;--fg:#1b1b1f;--muted:#5d5d66;--bg:#fff;--card:#f6f6f8;--line:#dcdce2;--accent:#4b3bd6;--ok:#17703a;--bad:#b3261e}
@media (prefers-color-scheme:dark){:root{--fg:#ececf1;--muted:#a6a6b0;--bg:#151518;--card:#202026;--line:#34343c;--accent:#9d92ff;--ok:#6fd29a;--bad:#ff8a80}}
*{box-sizing:border-box}body{margin:0;padding:16px;font:15px/1.5 system-ui,-apple-system,"Segoe UI",sans-serif;color:var(--fg);background:var(--bg)}
h1{font-size:1.25rem;margin:0 0 4px}h2{font-size:1.05rem;margin:0 0 6px}p{margin:0 0 8px}.lede{color:var(--muted);margin-bottom:16px}
.grid{display:grid;gap:12px;grid-template-columns:repeat(auto-fill,minmax(260px,1fr))}
.card{background:var(--card);border:1px solid var(--line);border-radius:10px;padding:14px}.card.highlight{outline:2px solid var(--accent)}
.badge{display:inline-block;font-size:.75rem;border:1px solid var(--line);border-radius:99px;padding:0 8px;color:var(--muted);margin-bottom:6px}
ul,ol{margin:4px 0 8px;padding-left:20px}.muted{color:var(--muted);font-size:.9rem}a{color:var(--accent)}
.chips{display:flex;flex-wrap:wrap;gap:6px;margin-bottom:12px}.chip{border:1px solid var(--line);background:var(--bg);color:var(--fg);border-radius:99px;padding:4px 10px;font:inherit;font-size:.85rem;cursor:pointer}.chip[aria-pressed=true]{background:var(--accent);border-color:var(--accent);color:#fff}
form{display:grid;gap:12px;max-width:520px}label{display:grid;gap:4px;font-weight:600;font-size:.9rem}
input,select,textarea{font:inherit;padding:8px 10px;border:1px solid var(--line);border-radius:8px;background:var(--bg);color:var(--fg)}
textarea{min-height:96px;resize:vertical}[aria-invalid=true]{border-color:var(--bad)}
.field-error{color:var(--bad);font-weight:400;font-size:.85rem;min-height:0}
button[type=submit]{font:inherit;font-weight:600;padding:10px 14px;border:0;border-radius:8px;background:var(--accent);color:#fff;cursor:pointer}button:disabled{opacity:.6;cursor:wait}
.status{padding:10px 12px;border-radius:8px;border:1px solid var(--line)}.status:empty{display:none}.status.ok{color:var(--ok);border-color:var(--ok)}.status.error{color:var(--bad);border-color:var(--bad)}
output{font-weight:600}
`.trim();

/**
 * Tells an MCP Apps host (ChatGPT, Claude) that the widget is ready and how tall it is, and hands tool
 * input to the page as a `tool-input` event. Does nothing when the page is opened on its own.
 */
const HOST_BRIDGE = `
(function(){
  if (window.parent === window) return;
  function post(m){ window.parent.postMessage(m, '*'); }
  function size(){ post({jsonrpc:'2.0',method:'ui/notifications/size-changed',params:{width:document.documentElement.scrollWidth,height:document.documentElement.scrollHeight}}); }
  window.addEventListener('message', function(e){
    var m = e.data; if (!m || m.jsonrpc !== '2.0') return;
    if (m.id === 'init' && (m.result || m.error)) { post({jsonrpc:'2.0',method:'ui/notifications/initialized'}); size(); }
    if (m.method === 'ui/notifications/tool-input' && m.params) document.dispatchEvent(new CustomEvent('tool-input',{detail:m.params.arguments||{}}));
  });
  post({jsonrpc:'2.0',id:'init',method:'ui/initialize',params:{protocolVersion:'2026-01-26',appInfo:{name:document.title,version:'1.0.0'},appCapabilities:{}}});
  if (window.ResizeObserver) new ResizeObserver(size).observe(document.body);
  var input = window.openai && window.openai.toolInput;
  if (input) setTimeout(function(){ document.dispatchEvent(new CustomEvent('tool-input',{detail:input})); });
})();
`.trim();

export type WidgetPage = { html: string; csp: string };

/** A self-contained page: one inline style, one inline script (both allowed by hash), no external loads. */
export function widgetPage({ title, body, script = '', data, origin }: { title: string; body: string; script?: string; data?: unknown; origin: string }): WidgetPage {
  const js = [data === undefined ? '' : `var DATA = ${scriptJson(data)};`, HOST_BRIDGE, script.trim()].filter(Boolean).join('\n');
  const html = [
    '<!doctype html>',
    '<html lang="en">',
    '<head>',
    '<meta charset="utf-8">',
    '<meta name="viewport" content="width=device-width, initial-scale=1">',
    `<title>${escapeHtml(title)}</title>`,
    // An empty icon: otherwise the browser asks for /favicon.ico, which a sandboxed host may not allow.
    '<link rel="icon" href="data:,">',
    `<style>${STYLE}</style>`,
    '</head>',
    '<body>',
    body.trim(),
    `<script>${js}</script>`,
    '</body>',
    '</html>',
    '',
  ].join('\n');
  return { html, csp: widgetCsp({ origin, script: js, style: STYLE }) };
}
