import { createServer, type Server } from 'node:net';
import { freePort } from '@forms/local-services';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { fetchWithCause } from './fetch-with-cause.ts';

// Each failure for real, on this machine's sockets: what the message keeps of undici's `err.cause`.
let plain: Server;
let plainPort: number;
let closedPort: number;
beforeAll(async () => {
  // Answers HTTP to whoever connects: a TLS client gets a record it cannot read.
  plain = createServer((socket) => socket.end('HTTP/1.1 200 OK\r\n\r\n', () => socket.destroy())).listen(
    0,
    '127.0.0.1',
  );
  await new Promise((resolve) => plain.once('listening', resolve));
  plainPort = (plain.address() as { port: number }).port;
  // Nothing listens there, and the port is outside the range the OS hands out itself (so no socket takes it).
  closedPort = await freePort();
});
afterAll(() => new Promise((resolve) => plain.close(resolve)));

const failure = (url: string) =>
  fetchWithCause(url, { signal: AbortSignal.timeout(5_000) }).then(
    () => expect.unreachable(),
    (err: Error) => err,
  );

it('a refused connection: its code and address', async () => {
  const err = await failure(`http://127.0.0.1:${closedPort}/v0/app/Contacts`);
  expect(err).toBeInstanceOf(TypeError);
  expect(err.message).toBe(`fetch failed: connect ECONNREFUSED 127.0.0.1:${closedPort}`);
  expect((err.cause as { code: string }).code).toBe('ECONNREFUSED');
});

it('a TLS failure: its code and reason, and where', async () => {
  const err = await failure(`https://127.0.0.1:${plainPort}/v0/app/Contacts`);
  expect(err.message).toBe(
    `fetch failed: ERR_SSL_WRONG_VERSION_NUMBER (wrong version number) (127.0.0.1:${plainPort})`,
  );
});

it('a port fetch refuses to use, and where', async () => {
  expect((await failure('http://127.0.0.1:9/v0')).message).toBe('fetch failed: bad port (127.0.0.1:9)');
});

it('a URL with credentials: its origin only, never the credentials, path or query', async () => {
  const err = await failure(`http://user:secret@127.0.0.1:${closedPort}/v0/app/T?filterByFormula=ada@acme.io`);
  expect(err.message).toBe(
    `Request cannot be constructed from a URL that includes credentials: http://127.0.0.1:${closedPort}`,
  );
});
