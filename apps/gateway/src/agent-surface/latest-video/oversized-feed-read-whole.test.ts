import { once } from 'node:events';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { setTimeout as sleep } from 'node:timers/promises';
import { describe, expect, it } from 'vitest';
import { FeedFormatError, fetchFeed } from './video-feed.ts';

describe('an oversized video feed', () => {
  it('is refused at the 2 MiB cap without reading the rest of the body', async () => {
    const chunk = Buffer.alloc(64 * 1024, 'a');
    const maxChunks = 800; // 50 MiB at most: the server stops on its own even if the client reads it all
    let sent = 0;
    const server = createServer(async (_req, res) => {
      res.writeHead(200, { 'content-type': 'application/atom+xml' });
      // One wait for the close, not one per drain: each left a listener behind (Node's MaxListeners warning).
      const closed = once(res, 'close').catch(() => {});
      for (let i = 0; i < maxChunks && !res.destroyed; i++) {
        sent += chunk.length;
        if (!res.write(chunk)) await Promise.race([once(res, 'drain'), closed]);
      }
      res.end();
    });
    server.listen(0, '127.0.0.1');
    await once(server, 'listening');
    const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}/feed.xml`;
    try {
      const err = await fetchFeed(url, { fetch, timeoutMs: 20_000 }).catch((e: unknown) => e);
      expect(err).toBeInstanceOf(FeedFormatError);
      expect((err as Error).message).toBe('feed is too large');
      // Read whole, the body was 50 MiB; cut at the cap, only the cap plus socket buffers left the server.
      await sleep(200);
      expect(sent).toBeLessThan(12 * 1024 * 1024);
    } finally {
      server.closeAllConnections();
      server.close();
    }
  });
});
