import { chmodSync, rmSync } from 'node:fs';
import { createServer, request } from 'node:http';
import { connect } from 'node:net';
import type { WorkerConfig } from '../config.ts';
import { answerErase } from './answer-erase.ts';
import { EraseIncomplete, EraseOutOfReach, EraseRefused, type EraseReport, type Eraser } from './erase-person.ts';

/**
 * `ops erase` beside a running `pnpm start`. The embedded PGlite is one process's alone (lockDataDir), so an
 * `ops erase` cannot open it while the worker holds it: it asks that worker instead, over a Unix socket
 * beside the data folder (`<pglite dir>.erase.sock`), which answers `POST /admin/erase` exactly as the
 * admin port does (the same handler, the same eraser). No token: the socket is owner-only (0600), so only
 * the user who could open the data folder itself may ask; nothing listens on the network.
 */
export function localEraseSocket(config: Pick<WorkerConfig, 'pgliteDir'>): string {
  return `${config.pgliteDir}.erase.sock`;
}

/** True when this worker's CRM is the embedded PGlite in its data folder (no Airtable, no DATABASE_URL). */
export function usesEmbeddedPglite(config: Pick<WorkerConfig, 'airtable' | 'databaseUrl'>): boolean {
  return !config.airtable && !config.databaseUrl;
}

/**
 * Serves the worker's erase on the socket (and closes `eraser` with it); the worker holds the PGlite lock,
 * so a socket file found there is one a killed worker left.
 */
export async function serveLocalErase(path: string, eraser: Eraser): Promise<{ close: () => Promise<void> }> {
  rmSync(path, { force: true });
  const server = createServer((req, res) => {
    if ((req.url ?? '').split('?')[0] === '/admin/erase' && req.method === 'POST') return answerErase(req, res, eraser);
    res.writeHead(404, { 'content-type': 'text/plain' }).end('not found\n');
  });
  try {
    await new Promise<void>((resolve, reject) => {
      server.once('error', reject);
      server.listen(path, () => resolve());
    });
    chmodSync(path, 0o600);
  } catch (err) {
    server.close();
    await eraser.close();
    throw err;
  }
  return {
    close: () =>
      new Promise<void>((resolve) =>
        server.close(() => {
          rmSync(path, { force: true });
          void eraser.close().then(resolve, resolve);
        }),
      ),
  };
}

/** Whether a worker answers on the socket (a file left by a killed one refuses the connection). */
export function workerAnswersOn(path: string): Promise<boolean> {
  return new Promise((resolve) => {
    const socket = connect(path);
    socket.once('connect', () => {
      socket.end();
      resolve(true);
    });
    socket.once('error', () => resolve(false));
  });
}

/** An Eraser that asks the worker on the socket: the same report, the same errors, as if run here. */
export function remoteEraser(path: string, timeoutMs: number): Eraser {
  return {
    async erase(address, { dryRun }) {
      const { status, body } = await post(path, JSON.stringify({ email: address, dryRun }), timeoutMs);
      if (status === 200) return body as EraseReport;
      const message = String((body as { message?: unknown }).message ?? `the worker answered ${status}`);
      const { error, field, store, stores } = body as Partial<EraseIncomplete & EraseOutOfReach & EraseRefused> & {
        error?: string;
      };
      if (error === 'ERASURE_STORE_UNREACHABLE' && store) throw new EraseOutOfReach(store, message);
      if (error === 'ERASURE_INCOMPLETE' && stores) throw new EraseIncomplete(stores);
      if (error === 'ERASURE_NOT_CONFIGURED' || error === 'INVALID_EMAIL') throw new EraseRefused(message, field);
      throw new Error(`the running worker could not erase: ${message}`);
    },
    close: async () => {},
  };
}

function post(socketPath: string, text: string, timeoutMs: number): Promise<{ status: number; body: unknown }> {
  return new Promise((resolve, reject) => {
    const req = request(
      { socketPath, path: '/admin/erase', method: 'POST', headers: { 'content-type': 'application/json' } },
      (res) => {
        let raw = '';
        res.setEncoding('utf8');
        res.on('data', (chunk: string) => (raw += chunk));
        res.on('end', () => {
          try {
            resolve({ status: res.statusCode ?? 0, body: JSON.parse(raw) });
          } catch {
            reject(new Error(`the running worker answered ${res.statusCode} without JSON`));
          }
        });
      },
    );
    req.setTimeout(timeoutMs, () => req.destroy(new Error(`the running worker did not answer within ${timeoutMs} ms`)));
    req.on('error', reject);
    req.end(text);
  });
}
