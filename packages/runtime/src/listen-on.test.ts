import { createServer } from 'node:net';
import { afterEach, expect, it } from 'vitest';
import { listenOn } from './listen-on.ts';

// Issue 49.1: a taken port came out of `pnpm start` as Node's EADDRINUSE stack trace. The app that reads the
// port now says, in one line, which port it was and which variable sets it.
const servers = [createServer(), createServer()];
afterEach(() => {
  for (const server of servers) server.close();
});

it('a taken port rejects with one line naming the port and the variable', async () => {
  const [holder, second] = servers as [ReturnType<typeof createServer>, ReturnType<typeof createServer>];
  await listenOn(holder, { port: 0, host: '127.0.0.1', variable: 'PORT' });
  const { port } = holder.address() as { port: number };
  const refused = await listenOn(second, { port, host: '127.0.0.1', variable: 'METRICS_PORT' }).then(
    () => 'listened',
    (err: Error) => err.message,
  );
  expect(refused).toBe(
    `port ${port} on 127.0.0.1 is taken by another process: set METRICS_PORT to a free port (or stop that process)`,
  );
});
