import { once } from 'node:events';
import { Worker } from 'node:worker_threads';

/** The header the front door stamps each request's arrival in (ms since the epoch). */
export const ARRIVED_AT = 'x-arrived-at';

export type FrontDoor = {
  port: number;
  /** Stops taking connections and drops every one it holds: a client meets "connection refused". */
  goOffline(): Promise<void>;
  /** Takes connections again on the same port. */
  comeBack(): Promise<void>;
  close(): Promise<void>;
};

/**
 * A front door for the local server on `target`, on a thread of its own (front-door-thread.ts), that stamps
 * each request's arrival. The server judges a rate limit by those stamps: stamped on the test's own event
 * loop, they bunched whenever that loop was busy (an in-process gateway under load, a loaded machine), and
 * five requests a worker had sent 250 ms apart read as five within a second (docs/testing.md#under-load).
 */
export async function openFrontDoor(target: number): Promise<FrontDoor> {
  const thread = new Worker(new URL('./front-door-thread.ts', import.meta.url), { workerData: { target } });
  const [{ port }] = (await once(thread, 'message')) as [{ port: number }];
  const ask = async (message: 'offline' | 'online') => {
    thread.postMessage(message);
    await once(thread, 'message');
  };
  return {
    port,
    goOffline: () => ask('offline'),
    comeBack: () => ask('online'),
    async close() {
      await thread.terminate();
    },
  };
}
