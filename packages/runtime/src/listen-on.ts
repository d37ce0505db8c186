import { once } from 'node:events';
import type { Server } from 'node:net';

/**
 * Listens on `port` at `host`, or rejects with one line that names the port and `variable`, the setting to
 * change: a port another process holds (EADDRINUSE) or one this user may not take (EACCES) is a setting to
 * fix, not a crash to read a stack trace of. Other errors are rejected as they came.
 */
export async function listenOn(
  server: Server,
  { port, host, variable }: { port: number; host: string; variable: string },
) {
  server.listen(port, host);
  try {
    await once(server, 'listening');
  } catch (err) {
    const code = (err as NodeJS.ErrnoException).code;
    if (code === 'EADDRINUSE')
      throw new Error(
        `port ${port} on ${host} is taken by another process: set ${variable} to a free port (or stop that process)`,
      );
    if (code === 'EACCES')
      throw new Error(`port ${port} on ${host} may not be taken by this user: set ${variable} to a port above 1023`);
    throw err;
  }
}
