import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';

type Seen = { method: string; url: string; headers: IncomingMessage['headers']; body: string; at: number };
export type Answer = (req: IncomingMessage, res: ServerResponse) => void;

/** For tests: a real HTTP server on 127.0.0.1 that answers each request with the next scripted answer. */
export async function scriptedServer(answers: Answer[], fallback: Answer = json(200, { success: true })) {
  const seen: Seen[] = [];
  const server = createServer((req, res) => {
    let body = '';
    req.on('data', (chunk) => {
      body += chunk;
    });
    req.on('end', () => {
      seen.push({ method: req.method!, url: req.url!, headers: req.headers, body, at: performance.now() });
      (answers.shift() ?? fallback)(req, res);
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    seen,
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}

export function json(status: number, body: unknown, headers: Record<string, string> = {}): Answer {
  return (_req, res) => {
    res.writeHead(status, { 'content-type': 'application/json', ...headers });
    res.end(JSON.stringify(body));
  };
}

/** Drops the connection without an answer: the client sees a network error. */
export const hangUp: Answer = (req) => req.socket.destroy();
