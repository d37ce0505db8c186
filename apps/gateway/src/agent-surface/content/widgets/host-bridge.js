// Tells an MCP Apps host (ChatGPT, Claude) that the widget is ready and how tall it is, and hands tool
// input to the page as a `tool-input` event. Does nothing when the page is opened on its own.
// widget-page.ts inlines this file ahead of the widget's own script; the CSP allows it by hash.
(() => {
  if (window.parent === window) return;
  const post = (message) => window.parent.postMessage(message, '*');
  const size = () =>
    post({
      jsonrpc: '2.0',
      method: 'ui/notifications/size-changed',
      params: { width: document.documentElement.scrollWidth, height: document.documentElement.scrollHeight },
    });
  const toolInput = (args) => document.dispatchEvent(new CustomEvent('tool-input', { detail: args }));
  window.addEventListener('message', (event) => {
    const m = event.data;
    if (m?.jsonrpc !== '2.0') return;
    if (m.id === 'init' && (m.result || m.error)) {
      post({ jsonrpc: '2.0', method: 'ui/notifications/initialized' });
      size();
    }
    if (m.method === 'ui/notifications/tool-input' && m.params) toolInput(m.params.arguments || {});
  });
  post({
    jsonrpc: '2.0',
    id: 'init',
    method: 'ui/initialize',
    params: { protocolVersion: '2026-01-26', appInfo: { name: document.title, version: '1.0.0' }, appCapabilities: {} },
  });
  if (window.ResizeObserver) new ResizeObserver(size).observe(document.body);
  // ChatGPT's Apps SDK hands the arguments over as window.openai.toolInput instead of a message.
  const input = window.openai?.toolInput;
  if (input) setTimeout(() => toolInput(input));
})();
