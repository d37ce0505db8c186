import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tokenMatches } from '@forms/observability';
import { boundUrl, listenOn } from '@forms/runtime';
import type { Registry } from 'prom-client';
import { answerErase } from './privacy/answer-erase.ts';
import type { Eraser } from './privacy/erase-person.ts';

export type MetricsServer = { url: string; close: () => Promise<void> };

/**
 * The worker's admin port: its metrics at `/admin/metrics` like the gateway's, and `POST /admin/erase`
 * for a support tool (the worker holds the CRM and the bucket; the gateway never calls them), behind the
 * same ADMIN_TOKEN (bearer): Prometheus scrapes every worker process directly. With no token configured
 * the admin surface is off and every path answers 404, as on the gateway. `/readyz` answers either way
 * (no token): 200 while this worker delivers, 503 with the reason while it holds every job.
 */
export async function serveMetrics({
  registry,
  port,
  host,
  adminToken,
  adminTokenPrevious,
  eraser,
  notReady = () => undefined,
}: {
  registry: Registry;
  port: number;
  host: string;
  adminToken: string | undefined;
  /** ADMIN_TOKEN_PREVIOUS: accepted too during a rotation window. */
  adminTokenPrevious?: string | undefined;
  eraser?: Eraser | undefined;
  /** The worker's readiness for `/readyz`: why it is not ready, or undefined. */
  notReady?: () => string | undefined;
}): Promise<MetricsServer> {
  const server = createServer(async (req, res) => {
    const path = (req.url ?? '/').split('?')[0];
    // Readiness, like the gateway's, needs no token: it says only whether this worker delivers, and why not.
    if (path === '/readyz' && (req.method === 'GET' || req.method === 'HEAD')) {
      const reason = notReady();
      res.writeHead(reason ? 503 : 200, { 'content-type': 'application/json', 'cache-control': 'no-store' });
      res.end(JSON.stringify(reason ? { status: 'not ready', reason } : { status: 'ready' }));
      return;
    }
    const erase = path === '/admin/erase' && req.method === 'POST' && eraser !== undefined;
    if (!adminToken || (!erase && (path !== '/admin/metrics' || (req.method !== 'GET' && req.method !== 'HEAD')))) {
      res.writeHead(404, { 'content-type': 'text/plain' }).end('not found\n');
      return;
    }
    const bearer = /^Bearer (.+)$/i.exec(req.headers.authorization ?? '')?.[1];
    if (!tokenMatches(bearer, [adminToken, adminTokenPrevious])) {
      res.writeHead(401, { 'content-type': 'text/plain', 'www-authenticate': 'Bearer realm="forms-admin"' });
      res.end('unauthorized\n');
      return;
    }
    if (erase) return answerErase(req, res, eraser);
    try {
      const body = await registry.metrics();
      res.writeHead(200, { 'content-type': registry.contentType, 'cache-control': 'no-store' }).end(body);
    } catch {
      res.writeHead(500, { 'content-type': 'text/plain' }).end('metrics failed\n');
    }
  });
  await listenOn(server, { port, host, variable: 'METRICS_PORT' });
  return {
    url: boundUrl(server.address() as AddressInfo, '/admin/metrics'),
    close: () => new Promise<void>((resolve) => server.close(() => resolve())),
  };
}
