import { type ChildProcess, execFile, spawn } from 'node:child_process';
import { once } from 'node:events';
import { mkdirSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { promisify } from 'node:util';
import { Redis } from 'ioredis';
import { freePort } from './free-port.ts';
import { redisAnswers } from './redis-server.ts';

const run = promisify(execFile);

/** A node's own client and cluster bus ports. */
type NodePorts = { port: number; busPort: number };

/** Where a node is announced (client and bus ports) and the loopback address its connections leave from. */
type NodeRoute = NodePorts & { sourceAddress: string };

export type LocalRedisCluster = {
  /** `127.0.0.1:P1,127.0.0.1:P2,…`: the value for REDIS_CLUSTER_NODES (the announced ports, with `route`). */
  seeds: string;
  /** The nodes' own ports, as `kill` and `restart` take them. */
  ports: number[];
  /** The port of the master serving `slot` now (as announced), asked of a live node. */
  masterOf: (slot: number) => Promise<number>;
  /** SIGKILLs a node (its data goes with it: nothing is persisted). */
  kill: (port: number) => Promise<void>;
  /** Starts a killed node again on its port and folder; it rejoins, as a replica if it was failed over. */
  restart: (port: number) => Promise<void>;
  /** SIGSTOPs a node: alive, holding its connections, answering nothing (a stale master once failed over). */
  pause: (port: number) => void;
  /** SIGCONTs a paused node: it learns it was failed over and rejoins as a replica. */
  resume: (port: number) => void;
  /** How many replicas the master of `slot` has online now (INFO replication), asked of that master. */
  replicasOnline: (slot: number) => Promise<number>;
  /**
   * Waits until every live node says `cluster_state:ok` and the master of `slot` (of every slot when
   * omitted) has at least `replicas` replicas online.
   */
  waitHealthy: (opts?: { slot?: number; replicas?: number; timeoutMs?: number }) => Promise<void>;
  /**
   * Moves `slot` from its master to another master by the Redis Cluster specification's resharding steps:
   * the target IMPORTING, the source MIGRATING, the slot's keys MIGRATEd `batch` at a time every `everyMs`
   * until none is left, then SETSLOT NODE on the target, the source and every other master. Clients meet
   * ASK and TRYAGAIN for as long as it runs. Returns the ports (as announced) and how long the keys took.
   * Only on a cluster started without `route` (MIGRATE goes to the target's own port).
   */
  moveSlot: (
    slot: number,
    opts: { batch: (keysInSlot: number) => number; everyMs: number },
  ) => Promise<{ from: number; to: number; keys: number; migratingMs: number }>;
  stop: () => Promise<void>;
};

/**
 * A real Redis Cluster from `redis-server` binaries on loopback ports, for tests and benchmarks: no
 * container runtime. Each node runs in its own folder under one temporary directory (removed by `stop`),
 * with its own data and cluster bus port, then `redis-cli --cluster create` assigns slots and replicas.
 *
 * `nodeTimeoutMs` is cluster-node-timeout: how long a master may be silent before its replica takes over.
 * Small here (tests kill masters on purpose); production keeps Redis's 15 s unless it wants faster
 * failovers at the risk of promoting on a network blip.
 */
export async function startRedisCluster({
  masters = 3,
  replicasPerMaster = 1,
  nodeTimeoutMs = 1_500,
  route,
}: {
  masters?: number;
  replicasPerMaster?: number;
  nodeTimeoutMs?: number;
  /**
   * For tests that partition nodes: where a node is to be reached (the ports it announces to the other
   * nodes and to clients, a proxy's say) and the loopback address its own bus and replication connections
   * leave from (`bind-source-addr`), so a proxy can tell another node's connection from a client's.
   * Without it a node announces its own ports and connects from 127.0.0.1.
   */
  route?: (node: NodePorts) => Promise<NodeRoute>;
} = {}): Promise<LocalRedisCluster> {
  const root = mkdtempSync(join(tmpdir(), 'forms-redis-cluster-'));
  const count = masters * (1 + replicasPerMaster);
  const nodes = new Map<number, { busPort: number; announced: NodeRoute | undefined; process: ChildProcess }>();

  async function startNode(port: number, busPort: number, announced: NodeRoute | undefined): Promise<void> {
    const dir = join(root, String(port));
    mkdirSync(dir, { recursive: true });
    const routing = announced
      ? [
          '--cluster-announce-ip',
          '127.0.0.1',
          '--cluster-announce-port',
          String(announced.port),
          '--cluster-announce-bus-port',
          String(announced.busPort),
          '--bind-source-addr',
          announced.sourceAddress,
          // Connections from another loopback address than 127.0.0.1 (the other nodes') are let in.
          '--protected-mode',
          'no',
        ]
      : [];
    const child = spawn(
      'redis-server',
      [
        '--port',
        String(port),
        '--cluster-port',
        String(busPort),
        '--bind',
        '127.0.0.1',
        '--dir',
        dir,
        '--cluster-enabled',
        'yes',
        '--cluster-config-file',
        'nodes.conf',
        '--cluster-node-timeout',
        String(nodeTimeoutMs),
        '--save',
        '',
        '--appendonly',
        'no',
        '--maxmemory-policy',
        'noeviction',
        // A replica's first sync starts at once (the default waits 5 s for more replicas to share it).
        '--repl-diskless-sync-delay',
        '0',
        ...routing,
      ],
      { stdio: 'ignore' },
    );
    nodes.set(port, { busPort, announced, process: child });
    const deadline = Date.now() + 10_000;
    while (!(await redisAnswers(`redis://127.0.0.1:${port}`, 200))) {
      if (Date.now() > deadline || child.exitCode !== null) throw new Error(`redis-server did not answer on ${port}`);
      await sleep(50);
    }
  }

  async function ask<T>(port: number, work: (client: Redis) => Promise<T>): Promise<T> {
    const client = new Redis(port, '127.0.0.1', {
      lazyConnect: true,
      enableOfflineQueue: false,
      connectTimeout: 500,
      // A paused node accepts the connection and answers nothing.
      commandTimeout: 2_000,
      maxRetriesPerRequest: 0,
      retryStrategy: () => null,
    });
    client.on('error', () => {});
    try {
      await client.connect();
      return await work(client);
    } finally {
      client.disconnect();
    }
  }

  async function mastersWithSlots(): Promise<number[]> {
    const [port] = live()[0] ?? [];
    if (port === undefined) throw new Error('no live node');
    const ranges = (await ask(port, (c) => c.call('CLUSTER', 'SLOTS'))) as [number, number, [string, number]][];
    return [...new Set(ranges.map((r) => r[2][1]))];
  }

  const paused = new Set<number>();
  const live = () =>
    [...nodes].filter(([port, n]) => n.process.exitCode === null && n.process.signalCode === null && !paused.has(port));

  const cluster: LocalRedisCluster = {
    seeds: '',
    ports: [],
    async masterOf(slot) {
      for (const [port] of live()) {
        try {
          const ranges = (await ask(port, (c) => c.call('CLUSTER', 'SLOTS'))) as [number, number, [string, number]][];
          const range = ranges.find(([from, to]) => slot >= from && slot <= to);
          if (range) return range[2][1];
        } catch {
          // that node is going away; ask the next
        }
      }
      throw new Error(`no live node knows the master of slot ${slot}`);
    },
    async kill(port) {
      const node = nodes.get(port);
      if (!node || node.process.exitCode !== null || node.process.signalCode !== null) return;
      const exited = once(node.process, 'exit');
      node.process.kill('SIGKILL');
      await exited;
    },
    async restart(port) {
      const node = nodes.get(port);
      if (!node) throw new Error(`no node on ${port}`);
      await startNode(port, node.busPort, node.announced);
    },
    async waitHealthy({ slot, replicas = 0, timeoutMs = 30_000 } = {}) {
      const deadline = Date.now() + timeoutMs;
      let last = '';
      for (let turn = 0; turn < timeoutMs / 100 + 1 && Date.now() < deadline; turn++) {
        try {
          const states = await Promise.all(live().map(([port]) => ask(port, (c) => c.call('CLUSTER', 'INFO'))));
          if (!states.every((info) => String(info).includes('cluster_state:ok'))) {
            last = 'cluster_state is not ok on every node';
          } else {
            const masters = slot === undefined ? await mastersWithSlots() : [await cluster.masterOf(slot)];
            const lagging: string[] = [];
            for (const master of masters) {
              const info = String(await ask(master, (c) => c.info('replication')));
              const online = info.match(/^slave\d+:.*state=online.*$/gm)?.length ?? 0;
              if (online < replicas) lagging.push(`master ${master} has ${online} of ${replicas} replicas online`);
            }
            if (lagging.length === 0) return;
            last = lagging.join('; ');
          }
        } catch (err) {
          last = (err as Error).message;
        }
        await sleep(100);
      }
      throw new Error(`cluster not healthy within ${timeoutMs} ms: ${last}`);
    },
    pause(port) {
      nodes.get(port)?.process.kill('SIGSTOP');
      paused.add(port);
    },
    resume(port) {
      nodes.get(port)?.process.kill('SIGCONT');
      paused.delete(port);
    },
    async replicasOnline(slot) {
      const info = String(await ask(await cluster.masterOf(slot), (c) => c.info('replication')));
      return info.match(/^slave\d+:.*state=online.*$/gm)?.length ?? 0;
    },
    async moveSlot(slot, { batch, everyMs }) {
      const from = await cluster.masterOf(slot);
      const to = (await mastersWithSlots()).find((port) => port !== from);
      if (to === undefined) throw new Error('no other master to move the slot to');
      const id = (port: number) => ask(port, (c) => c.call('CLUSTER', 'MYID')) as Promise<string>;
      const [fromId, toId] = [await id(from), await id(to)];
      const keys = Number(await ask(from, (c) => c.call('CLUSTER', 'COUNTKEYSINSLOT', slot)));
      const perBatch = Math.max(1, batch(keys));
      const started = Date.now();
      // The specification's order: the target importing first, so no ASK from the source finds it unready.
      await ask(to, (c) => c.call('CLUSTER', 'SETSLOT', slot, 'IMPORTING', fromId));
      await ask(from, (c) => c.call('CLUSTER', 'SETSLOT', slot, 'MIGRATING', toId));
      for (let turn = 0; turn < keys + 1_000; turn++) {
        const names = (await ask(from, (c) => c.call('CLUSTER', 'GETKEYSINSLOT', slot, perBatch))) as string[];
        if (names.length === 0) break;
        await ask(from, (c) => c.call('MIGRATE', '127.0.0.1', to, '', 0, 5_000, 'KEYS', ...names));
        await sleep(everyMs);
      }
      const migratingMs = Date.now() - started;
      // The target first (it then answers for the slot), the source next (it stops sending ASK), then the rest.
      const others = (await mastersWithSlots()).filter((port) => port !== from && port !== to);
      for (const port of [to, from, ...others])
        await ask(port, (c) => c.call('CLUSTER', 'SETSLOT', slot, 'NODE', toId));
      return { from, to, keys, migratingMs };
    },
    async stop() {
      for (const port of paused) cluster.resume(port);
      await Promise.all([...nodes.keys()].map((port) => cluster.kill(port)));
      rmSync(root, { recursive: true, force: true });
    },
  };

  try {
    const ports = new Set<number>();
    // Two ports a node (client and cluster bus), all distinct: the OS may hand a just-freed port out again.
    for (let turn = 0; ports.size < count * 2 && turn < count * 20; turn++) ports.add(await freePort());
    const list = [...ports];
    for (let i = 0; i < count; i++) {
      const ports = { port: list[i]!, busPort: list[count + i]! };
      await startNode(ports.port, ports.busPort, await route?.(ports));
    }
    cluster.ports = [...nodes.keys()];
    const reachedAt = [...nodes].map(([port, node]) => node.announced?.port ?? port);
    cluster.seeds = reachedAt.map((p) => `127.0.0.1:${p}`).join(',');
    await run(
      'redis-cli',
      [
        '--cluster',
        'create',
        ...reachedAt.map((p) => `127.0.0.1:${p}`),
        '--cluster-replicas',
        String(replicasPerMaster),
        '--cluster-yes',
      ],
      { timeout: 30_000 },
    );
    await cluster.waitHealthy({ replicas: replicasPerMaster });
    return cluster;
  } catch (err) {
    await cluster.stop();
    throw err;
  }
}
