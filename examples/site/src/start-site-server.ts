import { readFile } from 'node:fs/promises';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { extname, join, normalize } from 'node:path';
import { fileURLToPath } from 'node:url';

const PUBLIC = fileURLToPath(new URL('../public/', import.meta.url));
/** The client exactly as `pnpm --filter @forms/client build` makes it (the bytes its size script measures). */
const CLIENT_DIST = fileURLToPath(new URL('../../../packages/client/dist/', import.meta.url));
const TYPES: Record<string, string> = {
  '.html': 'text/html; charset=utf-8',
  '.js': 'text/javascript; charset=utf-8',
  '.css': 'text/css; charset=utf-8',
};

export type RunningSite = { url: string; stop: () => Promise<void> };

/**
 * The demo site: static files, on an origin of its own so every form call to the gateway is cross-origin,
 * as on a real marketing site. `/config.js` tells the page where the gateway is; `/client/*` is the built
 * client; each page's forms name the gateway in `action` too, so they work with JavaScript off (the gateway
 * must allow this site's pages in FORM_REDIRECT_URLS to send people to `/thanks.html`). Nothing else: no
 * bundler, no framework.
 */
export async function startSiteServer({
  apiUrl,
  port = 0,
  host = '127.0.0.1',
  challenge,
  clientDir = CLIENT_DIST,
}: {
  apiUrl: string;
  port?: number;
  host?: string;
  /**
   * A challenge widget on every form: the provider, its script (the provider's own, or a local stand-in in
   * tests) and the site key. The widget puts its token in the form's hidden field, which the form sends.
   */
  challenge?: { provider: 'turnstile' | 'hcaptcha' | 'recaptcha'; scriptUrl: string; siteKey: string };
  /** Where the built client is served from: `packages/client/dist` unless a test built one of its own. */
  clientDir?: string;
}): Promise<RunningSite> {
  const clientRoot = join(clientDir, '/');
  const server = createServer(async (req, res) => {
    const path = new URL(req.url ?? '/', 'http://site').pathname;
    if (path === '/config.js') {
      res.writeHead(200, { 'content-type': TYPES['.js']!, 'cache-control': 'no-store' });
      res.end(
        `export const API_URL = ${JSON.stringify(apiUrl)};\nexport const CHALLENGE = ${JSON.stringify(challenge ?? null)};\n`,
      );
      return;
    }
    const [root, rest] = path.startsWith('/client/') ? [clientRoot, path.slice(8)] : [PUBLIC, path.slice(1)];
    const file = normalize(join(root, rest || 'index.html'));
    if (!file.startsWith(root)) {
      res.writeHead(404).end();
      return;
    }
    try {
      const bytes = await readFile(file);
      // A page's forms post to the gateway by themselves too (JavaScript off): their `action` names it, and
      // their `_next` this site's thank-you page, on the address the browser used.
      const body =
        extname(file) === '.html'
          ? bytes
              .toString('utf8')
              .replaceAll('%API_URL%', escapeAttribute(apiUrl))
              .replaceAll('%SITE_URL%', escapeAttribute(`http://${req.headers.host ?? host}`))
          : bytes;
      res.writeHead(200, { 'content-type': TYPES[extname(file)] ?? 'application/octet-stream' });
      res.end(body);
    } catch {
      res.writeHead(404, { 'content-type': 'text/plain' }).end('not found');
    }
  });
  await new Promise<void>((resolve) => server.listen(port, host, resolve));
  return {
    url: `http://${host}:${(server.address() as AddressInfo).port}`,
    stop: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}

function escapeAttribute(text: string): string {
  return text.replace(/[&<>"']/g, (c) => `&#${c.charCodeAt(0)};`);
}
