import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import cors from '@koa/cors';
import Koa from 'koa';
import { afterAll, beforeAll, expect, test } from 'vitest';
import { isAdminPath } from './admin-path.ts';
import { PUBLIC_CORS_OPTIONS, publicCors } from './public-cors.ts';

// publicCors sets @koa/cors's headers itself on every request but a preflight. The reference is @koa/cors
// itself with the same options, as publicCors ran it before: every answer must carry the same headers.
function reference() {
  const open = cors(PUBLIC_CORS_OPTIONS);
  return (ctx: Koa.Context, next: Koa.Next) => (isAdminPath(ctx.path) ? next() : open(ctx, next));
}

function app(middleware: Koa.Middleware): Koa {
  const koa = new Koa();
  koa.silent = true;
  koa.use(middleware);
  koa.use(async (ctx) => {
    // An error that no error handler catches: Koa answers it with the headers it carries.
    if (ctx.path === '/throws')
      throw Object.assign(new Error('no'), { status: 418, expose: true, headers: { Vary: 'Accept' } });
    ctx.body = { ok: true };
  });
  return koa;
}

const servers: Server[] = [];
const urls: string[] = [];
beforeAll(async () => {
  for (const koa of [app(reference()), app(publicCors())]) {
    const server = createServer(koa.callback()).listen(0, '127.0.0.1');
    await new Promise((resolve) => server.once('listening', resolve));
    servers.push(server);
    urls.push(`http://127.0.0.1:${(server.address() as AddressInfo).port}`);
  }
});
afterAll(() => {
  for (const server of servers) server.close();
});

async function headers(url: string, path: string, init: RequestInit) {
  const res = await fetch(url + path, init);
  await res.arrayBuffer();
  const all = Object.fromEntries(res.headers);
  delete all.date;
  return { status: res.status, ...all };
}

const origin = { origin: 'https://site.example' };
const preflight = {
  ...origin,
  'access-control-request-method': 'POST',
  'access-control-request-headers': 'content-type',
};
test.each([
  ['POST', '/api/contact', {}],
  ['POST', '/api/contact', origin],
  ['GET', '/healthz', origin],
  ['PATCH', '/api/contact-update', origin],
  ['OPTIONS', '/api/contact', preflight],
  ['OPTIONS', '/api/contact', origin],
  ['POST', '/throws', origin],
  ['GET', '/throws', {}],
  ['GET', '/admin/metrics', origin],
  ['OPTIONS', '/%61dmin/queues', preflight],
])('%s %s with %o: the same headers as @koa/cors', async (method, path, sent) => {
  const [before, now] = await Promise.all(urls.map((url) => headers(url, path, { method, headers: sent })));
  expect(now).toEqual(before);
});
