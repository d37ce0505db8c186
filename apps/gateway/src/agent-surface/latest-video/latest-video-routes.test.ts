import { randomUUID } from 'node:crypto';
import { once } from 'node:events';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { pino } from 'pino';
import { afterAll, beforeAll, beforeEach, describe, expect, inject, it } from 'vitest';
import { createApp } from '../../app.ts';
import { loadConfig } from '../../config.ts';
import { createProducerRedis, createSubmissionQueue } from '../../submissions/index.ts';
import { atomFeed } from './video-feed.fixture.ts';

/** A local feed server whose next answers the test sets, counting the requests it gets. */
let feed: { server: Server; url: string; hits: number; answer: { status: number; body: string } };
const redis = createProducerRedis({ mode: 'single', url: inject('redisUrl'), prefix: 'bull' });
const queue = createSubmissionQueue(`video-${randomUUID()}`, redis, 'bull');
const open: Server[] = [];

const FEED = atomFeed([
  { id: 'first000001', title: 'Partnership ads, explained', published: '2026-02-01T12:00:00Z' },
  { id: 'second00002', title: 'Rebriefing creators', published: '2026-02-08T12:00:00Z' },
]);

beforeAll(async () => {
  const server = createServer((_req, res) => {
    feed.hits++;
    res.writeHead(feed.answer.status, { 'content-type': 'application/atom+xml; charset=utf-8' });
    res.end(feed.answer.body);
  });
  server.listen(0, '127.0.0.1');
  await once(server, 'listening');
  feed = {
    server,
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}/feeds/videos.xml`,
    hits: 0,
    answer: { status: 200, body: FEED },
  };
});
afterAll(async () => {
  for (const server of [...open, feed.server]) server.close();
  await queue.close();
  redis.disconnect();
});
beforeEach(() => {
  feed.hits = 0;
  feed.answer = { status: 200, body: FEED };
});

/** A gateway reading the local feed, with a clock the test moves. */
async function gateway(env: Record<string, string> = { VIDEO_FEED_URL: feed.url }) {
  let now = Date.parse('2026-02-10T00:00:00Z');
  const config = loadConfig({ PORT: '0', REDIS_URL: inject('redisUrl'), LOG_LEVEL: 'silent', ...env });
  const app = createApp({ config, queue, redis, logger: pino({ level: 'silent' }), clock: () => now });
  const server = app.listen(0, '127.0.0.1');
  open.push(server);
  await once(server, 'listening');
  const base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  return { get: (init?: RequestInit) => fetch(`${base}/api/latest-video`, init), advance: (ms: number) => (now += ms) };
}

describe('GET /api/latest-video', () => {
  it('answers the newest video with a one-hour edge cache', async () => {
    const gw = await gateway();
    const res = await gw.get();
    expect(res.status).toBe(200);
    expect(res.headers.get('cache-control')).toBe('public, max-age=3600, s-maxage=3600');
    expect(await res.json()).toEqual({
      videoId: 'second00002',
      title: 'Rebriefing creators',
      published: '2026-02-08T12:00:00.000Z',
      url: 'https://www.youtube.com/watch?v=second00002',
      thumbnail: 'https://i1.ytimg.com/vi/second00002/hqdefault.jpg',
      channelUrl: 'https://www.youtube.com/channel/UCabcdefghijklmnopqrstuv',
    });
  });

  it('serves from the server-side cache for an hour without refetching', async () => {
    const gw = await gateway();
    await gw.get();
    gw.advance(30 * 60_000);
    const res = await gw.get();
    expect(res.status).toBe(200);
    expect(res.headers.get('cache-control')).toBe('public, max-age=1800, s-maxage=1800');
    expect((await gw.get({ method: 'HEAD' })).status).toBe(200);
    expect(feed.hits).toBe(1);
    gw.advance(31 * 60_000);
    feed.answer = {
      status: 200,
      body: atomFeed([{ id: 'third000003', title: 'New', published: '2026-02-09T12:00:00Z' }]),
    };
    expect((await (await gw.get()).json()).videoId).toBe('third000003');
    expect(feed.hits).toBe(2);
  });

  it('serves the last good answer, briefly cached, when the feed fails', async () => {
    const gw = await gateway();
    await gw.get();
    gw.advance(61 * 60_000);
    feed.answer = { status: 500, body: 'upstream broke' };
    const stale = await gw.get();
    expect(stale.status).toBe(200);
    expect(stale.headers.get('cache-control')).toBe('public, max-age=60, s-maxage=60');
    expect((await stale.json()).videoId).toBe('second00002');
    expect(feed.hits).toBe(2);
    // While the feed is failing it is asked again at most once a minute.
    await gw.get();
    expect(feed.hits).toBe(2);
  });

  it('502 {error, message} when the feed fails and nothing is cached', async () => {
    feed.answer = { status: 503, body: '' };
    const res = await (await gateway()).get();
    expect(res.status).toBe(502);
    expect(await res.json()).toEqual({
      error: 'VIDEO_FEED_UNAVAILABLE',
      message: expect.stringContaining('could not be reached'),
    });
  });

  it('502, not 500, when the feed does not parse', async () => {
    feed.answer = { status: 200, body: '<feed><entry><title>broken</feed>' };
    const res = await (await gateway()).get();
    expect(res.status).toBe(502);
    expect(await res.json()).toEqual({
      error: 'VIDEO_FEED_UNAVAILABLE',
      message: expect.stringContaining('not a readable video feed'),
    });
  });

  it('502 when no feed is configured, and when the feed host does not answer', async () => {
    expect((await (await gateway({})).get()).status).toBe(502);
    const closed = createServer();
    closed.listen(0, '127.0.0.1');
    await once(closed, 'listening');
    const port = (closed.address() as AddressInfo).port;
    closed.close();
    expect((await (await gateway({ VIDEO_FEED_URL: `http://127.0.0.1:${port}/feed.xml` })).get()).status).toBe(502);
  });

  it('405 {error, message} with Allow for other methods', async () => {
    const res = await (await gateway()).get({ method: 'POST' });
    expect(res.status).toBe(405);
    expect(res.headers.get('allow')).toBe('GET, HEAD, OPTIONS');
    expect(await res.json()).toEqual({ error: 'METHOD_NOT_ALLOWED', message: expect.any(String) });
  });

  it('reads the channel feed from YOUTUBE_CHANNEL_ID', () => {
    const config = loadConfig({ YOUTUBE_CHANNEL_ID: 'UCabcdefghijklmnopqrstuv' });
    expect(config.videoFeedUrl).toBe('https://www.youtube.com/feeds/videos.xml?channel_id=UCabcdefghijklmnopqrstuv');
    expect(() => loadConfig({ YOUTUBE_CHANNEL_ID: 'nope' })).toThrow(/YOUTUBE_CHANNEL_ID/);
  });
});
