import { type LocalRedisCluster, startRedisCluster } from '@forms/local-services';
import { startTcpProxy, type TcpProxy } from './tcp-proxy.ts';

export type PartitionableCluster = LocalRedisCluster & {
  /**
   * Cuts the node announced at `port` off from every other node, both ways, on its bus and data ports
   * (gossip, failure reports, replication), while clients (connecting from 127.0.0.1) still reach it.
   */
  isolate(port: number): void;
  /** Ends the partition: the held bytes are delivered and traffic flows again. */
  heal(): void;
};

/**
 * A 3+3 Redis Cluster whose nodes reach each other only through TCP proxies this test holds, for the
 * partitions loopback allows without a firewall: each node is announced at a proxy's ports (data and
 * bus) and its own connections leave from a loopback address of its own (127.0.0.11, .12, …), so a
 * proxy tells another node's connection (held in a partition) from a client's (from 127.0.0.1, never held).
 */
export async function startPartitionableCluster({ nodeTimeoutMs = 1_500 } = {}): Promise<PartitionableCluster> {
  const nodes: { address: string; port: number; proxies: TcpProxy[] }[] = [];
  let cluster: LocalRedisCluster | undefined;
  try {
    cluster = await startRedisCluster({
      nodeTimeoutMs,
      route: async ({ port, busPort }) => {
        const proxies = [await startTcpProxy(port), await startTcpProxy(busPort)];
        const address = `127.0.0.${11 + nodes.length}`;
        nodes.push({ address, port: proxies[0]!.port, proxies });
        return { port: proxies[0]!.port, busPort: proxies[1]!.port, sourceAddress: address };
      },
    });
  } catch (err) {
    await Promise.all(nodes.flatMap((n) => n.proxies.map((p) => p.close())));
    throw err;
  }
  const started = cluster;
  return {
    ...started,
    isolate(port) {
      const cut = nodes.find((n) => n.port === port);
      if (!cut) throw new Error(`no node announced at ${port}`);
      const others = new Set(nodes.filter((n) => n !== cut).map((n) => n.address));
      for (const proxy of cut.proxies) proxy.hold((from) => others.has(from));
      for (const node of nodes) {
        if (node !== cut) for (const proxy of node.proxies) proxy.hold((from) => from === cut.address);
      }
    },
    heal() {
      for (const node of nodes) for (const proxy of node.proxies) proxy.heal();
    },
    async stop() {
      await started.stop();
      await Promise.all(nodes.flatMap((n) => n.proxies.map((p) => p.close())));
    },
  };
}
