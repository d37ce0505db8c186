/**
 * The local Airtable's front door, on a thread of its own (test/support/front-door.ts): takes each request,
 * stamps when it arrived, and passes it on to the server on the test's thread with the stamp in a header.
 * It does nothing else, so its event loop is free when a request comes in, whatever the test's thread is busy
 * with. A fault on the far side (a dropped connection) is passed back as the same fault.
 */
import { Agent, createServer, request } from 'node:http';
import type { AddressInfo } from 'node:net';
import { parentPort, workerData } from 'node:worker_threads';

const { target } = workerData as { target: number };
const agent = new Agent({ keepAlive: true });

const server = createServer((req, res) => {
  const arrivedAt = Date.now();
  const upstream = request(
    {
      host: '127.0.0.1',
      port: target,
      method: req.method,
      path: req.url,
      headers: { ...req.headers, 'x-arrived-at': String(arrivedAt) },
      agent,
    },
    (answer) => {
      res.writeHead(answer.statusCode ?? 502, answer.headers);
      answer.pipe(res);
      answer.on('error', () => res.socket?.destroy());
      answer.on('aborted', () => res.socket?.destroy());
    },
  );
  // The server dropped the connection (or was closed): the client meets a dropped connection too.
  upstream.on('error', () => res.socket?.destroy());
  req.pipe(upstream);
  // The client went away first (its timeout): so does the request it was waiting on.
  res.on('close', () => {
    if (!res.writableFinished) upstream.destroy();
  });
});
server.keepAliveTimeout = 5_000;

let port = 0;
parentPort!.on('message', (message: 'offline' | 'online') => {
  if (message === 'offline') {
    server.close(() => parentPort!.postMessage('offline'));
    server.closeAllConnections();
  } else {
    server.listen(port, '127.0.0.1', () => parentPort!.postMessage('online'));
  }
});
server.listen(0, '127.0.0.1', () => {
  port = (server.address() as AddressInfo).port;
  parentPort!.postMessage({ port });
});
