import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tokenMatches } from '@forms/observability';
import { boundUrl, listenOn } from '@forms/runtime';
import type { Registry } from 'prom-client';
import { EraseIncomplete, EraseOutOfReach, EraseRefused } from './privacy/erase-person.ts';
import type { Eraser } from './privacy/open-eraser.ts';

/** An erase request's body is one address and a flag: anything past this is not one. */
const ERASE_BODY_LIMIT = 4096;

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

/**
 * `POST /admin/erase` with `{"email": "…", "dryRun": true|false}`: the erase report as JSON. A bad body is
 * a 400 naming the field; a worker without ERASURE_KEY answers 503 `ERASURE_NOT_CONFIGURED`. The address
 * is never logged or echoed back: the report names the person by the keyed hash only.
 */
export async function answerErase(req: IncomingMessage, res: ServerResponse, eraser: Eraser): Promise<void> {
  const send = (status: number, body: unknown): void => {
    res
      .writeHead(status, { 'content-type': 'application/json', 'cache-control': 'no-store' })
      .end(JSON.stringify(body));
  };
  let raw = '';
  for await (const chunk of req) {
    raw += chunk;
    if (raw.length > ERASE_BODY_LIMIT)
      return send(413, { error: 'PAYLOAD_TOO_LARGE', message: `the body is over ${ERASE_BODY_LIMIT} bytes` });
  }
  let body: { email?: unknown; dryRun?: unknown };
  try {
    body = JSON.parse(raw) as typeof body;
    if (typeof body !== 'object' || body === null || Array.isArray(body)) throw new Error('not an object');
  } catch {
    return send(400, { error: 'INVALID_JSON', message: 'the body must be a JSON object' });
  }
  if (typeof body.email !== 'string' || body.email.trim() === '')
    return send(400, { error: 'EMAIL_REQUIRED', message: 'email is required', field: 'email' });
  if (body.dryRun !== undefined && typeof body.dryRun !== 'boolean')
    return send(400, { error: 'INVALID_FIELD', message: 'dryRun must be true or false', field: 'dryRun' });
  try {
    send(200, await eraser.erase(body.email, { dryRun: body.dryRun === true }));
  } catch (err) {
    // A store out of reach (nothing changed), or a stop half-way (by store; the same erase again finishes it).
    if (err instanceof EraseOutOfReach)
      return send(503, { error: 'ERASURE_STORE_UNREACHABLE', message: err.message, store: err.store });
    if (err instanceof EraseIncomplete)
      return send(503, { error: 'ERASURE_INCOMPLETE', message: err.message, stores: err.stores });
    if (!(err instanceof EraseRefused)) return send(500, { error: 'INTERNAL_ERROR', message: 'erase failed' });
    if (err.field) return send(400, { error: 'INVALID_EMAIL', message: err.message, field: err.field });
    send(503, { error: 'ERASURE_NOT_CONFIGURED', message: err.message });
  }
}
