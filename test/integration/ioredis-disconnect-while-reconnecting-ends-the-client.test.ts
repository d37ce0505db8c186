import { freePort } from '@forms/local-services';
import { Cluster, Redis } from 'ioredis';
import { expect, it } from 'vitest';
import { sleep } from '../support/wait.ts';

// patches/ioredis@6.0.0.patch: without it, a client told to disconnect between two retries stays
// reconnecting (a cluster: disconnecting) forever and its queued commands never settle (what hung a
// worker's shutdown, test/fault/sigterm-while-redis-reconnects.test.ts). When ioredis is upgraded and the
// patch dropped, this says whether the new version still needs it.
/** An end is a few event-loop turns away; the clients' next retry is a minute away. */
const ENDS_WITHIN_MS = 2_000;

const clients = {
  'one server': (port: number) =>
    new Redis(port, '127.0.0.1', { maxRetriesPerRequest: null, retryStrategy: () => 60_000 }),
  cluster: (port: number) =>
    new Cluster([{ host: '127.0.0.1', port }], {
      clusterRetryStrategy: () => 60_000,
      redisOptions: { maxRetriesPerRequest: null },
    }),
};

it.each(Object.keys(clients) as (keyof typeof clients)[])(
  'ends a client of %s told to disconnect between two retries, and fails its queued commands',
  async (kind) => {
    const client = clients[kind](await freePort()); // nothing listens there
    client.on('error', () => {}); // ECONNREFUSED, every retry
    await new Promise((resolve) => client.once('reconnecting', resolve));
    const queued = client.get('k');
    const ended = new Promise((resolve) => client.once('end', () => resolve('end')));
    client.disconnect();
    // Unpatched, it never ends: the race says so long before the next retry (60 s) or the test's timeout.
    expect(await Promise.race([ended, sleep(ENDS_WITHIN_MS).then(() => `still ${client.status}`)])).toBe('end');
    await expect(queued).rejects.toThrow(kind === 'cluster' ? 'None of startup nodes' : 'Connection is closed');
  },
);
