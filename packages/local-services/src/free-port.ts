import { readFileSync } from 'node:fs';
import { createServer } from 'node:net';

/** The lowest port handed out; below it sit the well-known and registered services' ports. */
const LOWEST = 10_000;
/** Ports this process has handed out already, never handed out again. */
const handedOut = new Set<number>();
/** The highest port handed out: the one below the OS's own range, read once. */
let highest: number | undefined;

/**
 * A TCP port on 127.0.0.1 that was free a moment ago, for a process that binds it itself (redis-server, an
 * app). Chosen at random below the range the OS hands out on its own, to `listen(0)` and to every outgoing
 * connection (`ip_local_port_range`): a port the OS picked and we freed could go to the next connection any
 * process opened before its new owner bound it (a Redis Cluster node once failed to start so, beside the
 * fault tier's load). Tried with a bind first, so a port in use is passed over.
 */
export async function freePort(): Promise<number> {
  highest ??= ephemeralLow() - 1;
  for (let tries = 0; tries < 100 && highest > LOWEST; tries++) {
    const port = LOWEST + Math.floor(Math.random() * (highest - LOWEST + 1));
    if (handedOut.has(port) || !(await bindable(port))) continue;
    handedOut.add(port);
    return port;
  }
  throw new Error(`no free port between ${LOWEST} and ${highest} after 100 tries`);
}

/** The first port of the OS's own range (Linux's default where /proc does not say; macOS's starts higher). */
function ephemeralLow(): number {
  try {
    return Number(readFileSync('/proc/sys/net/ipv4/ip_local_port_range', 'utf8').trim().split(/\s+/)[0]);
  } catch {
    return 32_768;
  }
}

function bindable(port: number): Promise<boolean> {
  return new Promise((resolve) => {
    const server = createServer();
    server.unref();
    server.once('error', () => resolve(false));
    server.listen(port, '127.0.0.1', () => server.close(() => resolve(true)));
  });
}
