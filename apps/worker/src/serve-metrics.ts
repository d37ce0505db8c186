import { once } from 'node:events';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tokenMatches } from '@forms/observability';
import type { Registry } from 'prom-client';

export type MetricsServer = { url: string; close: () => Promise<void> };

/**
 * The worker's metrics on its own small HTTP port, at `/admin/metrics` like the gateway's, behind the same
 * ADMIN_TOKEN (bearer): Prometheus scrapes every worker process directly. With no token configured the
 * admin surface is off and every path answers 404, as on the gateway.
 */
export async function serveMetrics({
  registry,
  port,
  host,
  adminToken,
}: {
  registry: Registry;
  port: number;
  host: string;
  adminToken: string | undefined;
}): Promise<MetricsServer> {
  const server = createServer(async (req, res) => {
    const path = (req.url ?? '/').split('?')[0];
    if (!adminToken || path !== '/admin/metrics' || (req.method !== 'GET' && req.method !== 'HEAD')) {
      res.writeHead(404, { 'content-type': 'text/plain' }).end('not found\n');
      return;
    }
    const bearer = /^Bearer (.+)$/i.exec(req.headers.authorization ?? '')?.[1];
    if (!tokenMatches(bearer, adminToken)) {
      res.writeHead(401, { 'content-type': 'text/plain', 'www-authenticate': 'Bearer realm="forms-admin"' });
      res.end('unauthorized\n');
      return;
    }
    try {
      const body = await registry.metrics();
      res.writeHead(200, { 'content-type': registry.contentType, 'cache-control': 'no-store' }).end(body);
    } catch {
      res.writeHead(500, { 'content-type': 'text/plain' }).end('metrics failed\n');
    }
  });
  server.listen(port, host);
  await once(server, 'listening');
  const { port: bound } = server.address() as AddressInfo;
  return {
    url: `http://${host === '0.0.0.0' ? '127.0.0.1' : host}:${bound}/admin/metrics`,
    close: () => new Promise<void>((resolve) => server.close(() => resolve())),
  };
}
