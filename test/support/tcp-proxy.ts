import type { AddressInfo } from 'node:net';
import { createConnection, createServer, type Socket } from 'node:net';

export type TcpProxy = {
  /** `redis://127.0.0.1:<port>`-style address of the proxy's own port. */
  port: number;
  /**
   * A network partition: every byte either way is held (connections stay open, nothing is closed); with
   * `from`, only on the connections whose client address it accepts (one peer cut off, others not).
   */
  hold(from?: (address: string) => boolean): void;
  /** The partition heals: held bytes are delivered in order, and traffic flows again. */
  heal(): void;
  /**
   * Once: the next bytes a client sends that `match` accepts reach the target, and the connection is cut
   * when the target answers, before the answer reaches the client (a command that ran, its reply lost).
   */
  dropAnswerTo(match: (sent: Buffer) => boolean): void;
  close(): Promise<void>;
};

/**
 * A TCP proxy on 127.0.0.1 in front of `targetPort`, for partitions no container network can make here:
 * `hold()` keeps every connection open and delivers nothing until `heal()`, as a switch that drops
 * packets without resetting would (the client's writes succeed and no answer comes). When the target
 * closes a connection (the server was killed), the client's side is closed too, and a new connection
 * reaches whatever listens on the port by then.
 */
export async function startTcpProxy(targetPort: number): Promise<TcpProxy> {
  let held: ((address: string) => boolean) | undefined;
  let dropNext: ((sent: Buffer) => boolean) | undefined;
  const pairs = new Set<{ client: Socket; upstream: Socket; queued: [Socket, Buffer][] }>();
  const server = createServer((client) => {
    const upstream = createConnection({ host: '127.0.0.1', port: targetPort });
    const pair = { client, upstream, queued: [] as [Socket, Buffer][] };
    const from = client.remoteAddress ?? '';
    pairs.add(pair);
    const forward = (to: Socket) => (chunk: Buffer) => {
      if (held?.(from)) pair.queued.push([to, chunk]);
      else to.write(chunk);
    };
    const end = () => {
      pairs.delete(pair);
      client.destroy();
      upstream.destroy();
    };
    let dropAnswer = false;
    const toUpstream = forward(upstream);
    const toClient = forward(client);
    client.on('data', (chunk: Buffer) => {
      if (dropNext?.(chunk)) {
        dropNext = undefined;
        dropAnswer = true;
      }
      toUpstream(chunk);
    });
    upstream.on('data', (chunk: Buffer) => {
      if (dropAnswer) end();
      else toClient(chunk);
    });
    client.on('close', end);
    upstream.on('close', end);
    client.on('error', end);
    upstream.on('error', end);
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    port: (server.address() as AddressInfo).port,
    hold(from = () => true) {
      held = from;
    },
    dropAnswerTo(match) {
      dropNext = match;
    },
    heal() {
      held = undefined;
      for (const pair of pairs) for (const [to, chunk] of pair.queued.splice(0)) to.write(chunk);
    },
    async close() {
      for (const pair of pairs) {
        pair.client.destroy();
        pair.upstream.destroy();
      }
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}
