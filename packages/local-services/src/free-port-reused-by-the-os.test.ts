import { once } from 'node:events';
import { readFileSync } from 'node:fs';
import { createServer, type Server } from 'node:net';
import { afterAll, describe, expect, it } from 'vitest';
import { freePort } from './free-port.ts';

/** The first port the OS hands out on its own (Linux). */
const ephemeralLow = Number(readFileSync('/proc/sys/net/ipv4/ip_local_port_range', 'utf8').split(/\s+/)[0]);

// A Redis Cluster node's port, picked by the OS and freed for redis-server to bind, went in between to another
// socket (CI, the cluster tier beside the fault tier's load): "redis-server did not answer on 43791".
describe('a free port for a process to bind', () => {
  const servers: Server[] = [];
  afterAll(() => Promise.all(servers.map((s) => new Promise((resolve) => s.close(resolve)))));

  it('lies outside the range the OS hands out on its own, so no listen(0) or connection takes it meanwhile', async () => {
    const ports: number[] = [];
    for (let i = 0; i < 40; i++) ports.push(await freePort());
    expect(new Set(ports).size).toBe(ports.length);
    for (const port of ports) expect(port).toBeLessThan(ephemeralLow);

    // What the OS picks itself, 300 times over, while the ports wait for their owners: none of them.
    for (let i = 0; i < 300; i++) {
      const server = createServer().listen(0, '127.0.0.1');
      servers.push(server);
      await once(server, 'listening');
    }
    const picked = servers.map((s) => (s.address() as { port: number }).port);
    expect(picked.filter((port) => ports.includes(port))).toEqual([]);
    // And each is free: its owner binds it.
    const owner = createServer().listen(ports[0], '127.0.0.1');
    servers.push(owner);
    await once(owner, 'listening');
  });
});
