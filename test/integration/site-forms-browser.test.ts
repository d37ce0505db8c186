import { randomUUID } from 'node:crypto';
import { createServer, request, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { type RunningSite, startSiteServer } from '@forms/example-site';
import { type LocalRedis, startRedisServer, startTestS3, type TestS3 } from '@forms/local-services';
import type { Browser, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { atomFeed } from '../../apps/gateway/src/agent-surface/latest-video/video-feed.fixture.ts';
import { PDF_TYPE, samplePdf } from '../support/cv-files.ts';
import { launchChromium } from '../support/launch-chromium.ts';
import { type Pipeline, startPipeline } from '../support/pipeline.ts';
import { buildSiteClient } from '../support/site-client.ts';
import { eventually, sleep } from '../support/wait.ts';

// This file stops and restarts its own redis-server (the gateway's 503), so it never touches the shared one.
let redis: LocalRedis;
let s3: TestS3;
let feed: Server;
let pipeline: Pipeline;
let site: RunningSite;
let client: { dir: string; remove: () => void } | undefined;
let browser: Browser;

describe('the demo site in headless Chromium, cross-origin to the gateway', () => {
  // Everything starts at once: on a busy 2-core machine, one after another took longer than a minute.
  beforeAll(async () => {
    // Each is kept as soon as it is up, so afterAll stops what started even when another part failed.
    await Promise.all([
      // The page loads the client exactly as built for sites (the bytes `pnpm --filter @forms/client size` measures).
      buildSiteClient().then((built) => (client = built)),
      startRedisServer().then((started) => (redis = started)),
      startTestS3().then((started) => (s3 = started)),
      startFeed().then((started) => (feed = started)),
      launchChromium().then((started) => (browser = started)),
    ]);
    pipeline = await startPipeline({
      REDIS_URL: redis.url,
      // The outage below is the client's to ride (its 503 retries with the key): the gateway's own hold off,
      // as past the hold (REDIS_HOLD_MS), the 503 at once.
      REDIS_HOLD_MS: '0',
      VIDEO_FEED_URL: `http://127.0.0.1:${(feed.address() as AddressInfo).port}/feed.xml`,
      ...s3.env(`site-${randomUUID().slice(0, 8)}`),
    });
    // The test's own queue handle would print every refused reconnect during the planned Redis outage below.
    pipeline.queue.on('error', () => {});
    site = await startSiteServer({ apiUrl: pipeline.gateway.url, clientDir: client!.dir });
  }, 120_000);
  afterAll(async () => {
    await browser?.close();
    await site?.stop();
    client?.remove();
    await pipeline?.stop();
    if (feed) await new Promise((resolve) => feed.close(resolve));
    await s3?.stop();
    await redis?.stop();
  });

  type Call = { method: string; path: string; key: string | undefined; status?: number };

  /** The demo page, with every API call it makes recorded (path, Idempotency-Key, status). */
  async function openSite(): Promise<{ page: Page; calls: Call[] }> {
    const page = await browser.newPage();
    // The video card's thumbnail lives on YouTube; a test sends nothing off this machine.
    await page.route(/^https:\/\//, (route) => route.abort());
    const calls: Call[] = [];
    const mine = new Map<unknown, Call>();
    page.on('request', async (req) => {
      const url = new URL(req.url());
      if (!url.pathname.startsWith('/api/') || !req.url().startsWith(pipeline.gateway.url)) return;
      const call: Call = { method: req.method(), path: url.pathname, key: undefined };
      calls.push(call);
      mine.set(req, call);
      call.key = (await req.allHeaders())['idempotency-key'];
    });
    page.on('response', (res) => {
      const call = mine.get(res.request());
      if (call) call.status = res.status();
    });
    expect((await page.goto(site.url))!.status()).toBe(200);
    expect(new URL(site.url).origin).not.toBe(new URL(pipeline.gateway.url).origin);
    return { page, calls };
  }

  async function rowsFor(email: string): Promise<Record<string, any>[]> {
    return (await pipeline.db.query('SELECT * FROM submissions WHERE email = $1', [email])).rows;
  }

  /** Waits until the queue holds nothing unfinished, so a row count is final. */
  async function drained() {
    await eventually(async () => {
      const counts = await pipeline.queue.getJobCounts('waiting', 'active', 'delayed', 'prioritized');
      return Object.values(counts).every((n) => n === 0);
    });
  }

  const okStatus = (page: Page, form: string) =>
    expect.poll(() => page.locator(`#${form} .status`).getAttribute('class'), { timeout: 20_000 }).toContain('ok');

  it('each form submits and shows success, and lands in the store; the video card shows the latest video', async () => {
    const { page, calls } = await openSite();
    const email = `ada-${randomUUID()}@acme.io`;

    await expect.poll(() => page.locator('#latest-video').getAttribute('data-video-id')).toBe('dQw4w9WgXcQ');
    expect(await page.locator('#latest-video').textContent()).toContain('Launch-day playbook');

    await page.fill('#contact [name=name]', 'Ada');
    await page.fill('#contact [name=email]', email);
    await page.fill('#contact [name=message]', 'Hello from the demo site.');
    await page.click('#contact button');
    await okStatus(page, 'contact');
    expect(await page.locator('#contact .status').textContent()).toMatch(/Thanks/);

    await page.fill('#signup [name=email]', email);
    await page.click('#signup button');
    await okStatus(page, 'signup');

    await page.fill('#webinar [name=fullName]', 'Ada Lovelace');
    await page.fill('#webinar [name=workEmail]', email);
    await page.click('#webinar button');
    await okStatus(page, 'webinar');

    const cv = samplePdf(2_000);
    await page.fill('#careers [name=name]', 'Ada Lovelace');
    await page.fill('#careers [name=email]', email);
    await page.fill('#careers [name=role]', 'Engineer');
    await page.setInputFiles('#careers [name=cvFile]', { name: 'ada-cv.pdf', mimeType: PDF_TYPE, buffer: cv });
    await page.click('#careers button');
    await okStatus(page, 'careers');

    await eventually(async () => (await rowsFor(email)).length === 4);
    const rows = await rowsFor(email);
    expect(rows.map((r) => r.kind).sort()).toEqual(['careers-apply', 'contact', 'cpa-signup', 'partner-webinar']);
    const careers = rows.find((r) => r.kind === 'careers-apply')!;
    expect(careers).toMatchObject({ cv_size: cv.length, cv_upload_failed: false, cv_filename: 'ada-cv.pdf' });
    // One call per submission, each with its own key; the video is a plain GET without one (no preflight).
    const posts = calls.filter((c) => c.method !== 'GET');
    expect(posts.map((c) => c.status)).toEqual([200, 200, 200, 200]);
    expect(new Set(posts.map((c) => c.key)).size).toBe(4);
    expect(calls.find((c) => c.method === 'GET')).toMatchObject({ path: '/api/latest-video', key: undefined });
    await page.close();
  });

  it('a personal email on a work-email form shows the error next to the field; nothing is stored', async () => {
    const { page, calls } = await openSite();
    const email = `pat-${randomUUID()}@gmail.com`;
    await page.fill('#signup [name=email]', email);
    await page.click('#signup button');
    await expect.poll(() => page.locator('#signup-email-error').textContent()).toMatch(/must be a work address/);
    expect(await page.getAttribute('#signup [name=email]', 'aria-invalid')).toBe('true');
    // The status line ends: it used to stay at "Sending…" after a refused field.
    expect(await page.locator('#signup .status').textContent()).toBe('Not sent: see the field marked.');
    expect(calls.filter((c) => c.method === 'POST')).toMatchObject([{ path: '/api/cpa-signup', status: 400 }]);

    // The webinar names its field workEmail; the error goes beside that field, not a generic "email".
    await page.fill('#webinar [name=fullName]', 'Pat');
    await page.fill('#webinar [name=workEmail]', email);
    await page.click('#webinar button');
    await expect.poll(() => page.locator('#webinar-workEmail-error').textContent()).toContain('"workEmail"');
    await drained();
    expect(await rowsFor(email)).toEqual([]);
    await page.close();
  });

  it('a CV over 5 MiB shows its error before anything is uploaded', async () => {
    const { page, calls } = await openSite();
    await page.fill('#careers [name=name]', 'Ada');
    await page.fill('#careers [name=email]', `big-${randomUUID()}@acme.io`);
    await page.fill('#careers [name=role]', 'Engineer');
    const big = Buffer.concat([samplePdf(), Buffer.alloc(5 * 1024 * 1024)]);
    await page.setInputFiles('#careers [name=cvFile]', { name: 'big.pdf', mimeType: PDF_TYPE, buffer: big });
    await page.click('#careers button');
    await expect.poll(() => page.locator('#careers-cvFile-error').textContent()).toContain('larger than 5 MiB');
    expect(await page.getAttribute('#careers [name=cvFile]', 'aria-invalid')).toBe('true');
    expect(calls).toEqual([expect.objectContaining({ path: '/api/latest-video' })]);
    await page.close();
  });

  it('a double click sends one submission', async () => {
    const { page, calls } = await openSite();
    const email = `dbl-${randomUUID()}@acme.io`;
    await page.fill('#contact [name=email]', email);
    await page.dblclick('#contact button');
    await okStatus(page, 'contact');
    await drained();
    expect(calls.filter((c) => c.path === '/api/contact')).toHaveLength(1);
    expect(await rowsFor(email)).toHaveLength(1);
    await page.close();
  });

  it('while Redis is down the gateway answers 503; the client retries with the same key and the submission lands once', async () => {
    const { page, calls } = await openSite();
    const email = `outage-${randomUUID()}@acme.io`;
    await page.fill('#contact [name=email]', email);
    // Redis stopped, not hung: the gateway's enqueue fails at once, so its 503 means "not recorded", and
    // a retry cannot duplicate even before the gateway honours Idempotency-Key.
    await redis.stop();
    const downAt = performance.now();
    await page.click('#contact button');
    await expect.poll(() => calls.find((c) => c.path === '/api/contact')?.status).toBe(503);
    expect(await page.locator('#contact .status').textContent()).toBe('Sending…');
    await sleep(Math.max(0, 2_000 - (performance.now() - downAt)));
    redis = await startRedisServer({ port: redis.port });

    await okStatus(page, 'contact');
    const posts = calls.filter((c) => c.path === '/api/contact');
    expect(posts.length).toBeGreaterThanOrEqual(2);
    expect(posts.at(-1)!.status).toBe(200);
    expect(posts.slice(0, -1).every((c) => c.status === 503)).toBe(true);
    expect(new Set(posts.map((c) => c.key)).size).toBe(1);
    expect(posts[0]!.key).toMatch(/^[0-9a-f-]{36}$/);

    await eventually(async () => (await rowsFor(email)).length > 0);
    await drained();
    expect(await rowsFor(email)).toHaveLength(1);
    await page.close();
  });

  it('time-to-ack in the browser, median of 20, with and without a CORS preflight', async () => {
    const results: string[] = [];
    for (const rttMs of [0, 50]) {
      const proxy = await startDelayProxy(new URL(pipeline.gateway.url), rttMs);
      try {
        const page = await browser.newPage();
        await page.goto(site.url);
        // Preflighted: each URL differs (?n=…), so Chromium's preflight cache (keyed by URL) never helps: what
        // a visitor's first submission pays. Cached: one URL, so after the first only the POST goes out: what
        // Access-Control-Max-Age buys a repeat submission, and the shape a simple (text/plain) request has.
        const preflighted = await timeSubmissions(page, proxy.url, 'fresh-url');
        const optionsAfterPreflighted = proxy.options;
        const cached = await timeSubmissions(page, proxy.url, 'same-url');
        expect(optionsAfterPreflighted).toBe(20);
        expect(proxy.options - optionsAfterPreflighted).toBeLessThanOrEqual(1); // the warm-up's only
        results.push(
          `${rttMs ? `${rttMs} ms added per request (a ${rttMs} ms RTT)` : 'loopback'}: ` +
            `with preflight ${median(preflighted).toFixed(1)} ms, without ${median(cached).toFixed(1)} ms`,
        );
        await page.close();
      } finally {
        await proxy.stop();
      }
    }
    console.log(`time-to-ack in Chromium, median of 20 contact submissions:\n  ${results.join('\n  ')}`);
    await drained();
  });
});

/** A channel feed with one video, for the latest-video card. */
async function startFeed(): Promise<Server> {
  const server = createServer((_req, res) => {
    res.writeHead(200, { 'content-type': 'application/atom+xml' });
    res.end(atomFeed([{ id: 'dQw4w9WgXcQ', title: 'Launch-day playbook', published: '2026-11-20T10:00:00+00:00' }]));
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return server;
}

/** Times 20 submissions from inside the page with the same headers the client sends. */
async function timeSubmissions(page: Page, apiUrl: string, mode: 'fresh-url' | 'same-url'): Promise<number[]> {
  return page.evaluate(
    async ({ apiUrl, mode }) => {
      const post = (n: number) =>
        fetch(`${apiUrl}/api/contact${mode === 'fresh-url' ? `?n=${n}-${Math.random()}` : ''}`, {
          method: 'POST',
          headers: { 'content-type': 'application/json', 'idempotency-key': crypto.randomUUID() },
          body: JSON.stringify({ email: `timing-${crypto.randomUUID()}@acme.io` }),
        });
      if (mode === 'same-url') await post(-1); // fills the preflight cache
      const times: number[] = [];
      for (let n = 0; n < 20; n++) {
        const started = performance.now();
        const res = await post(n);
        await res.json();
        if (res.status !== 200) throw new Error(`answered ${res.status}`);
        times.push(performance.now() - started);
      }
      return times;
    },
    { apiUrl, mode },
  );
}

function median(values: number[]): number {
  const sorted = [...values].sort((a, b) => a - b);
  return (sorted[9]! + sorted[10]!) / 2;
}

/**
 * A forwarding proxy that holds every request (preflights included) for `delayMs` before passing it on:
 * a stand-in for network distance, since loopback hides what an extra round trip costs. Counts OPTIONS.
 */
async function startDelayProxy(target: URL, delayMs: number) {
  const stats = { options: 0 };
  const server = createServer((req, res) => {
    if (req.method === 'OPTIONS') stats.options++;
    setTimeout(() => {
      const upstream = request(
        { host: target.hostname, port: target.port, path: req.url, method: req.method, headers: req.headers },
        (answer) => {
          res.writeHead(answer.statusCode!, answer.headers);
          answer.pipe(res);
        },
      );
      upstream.on('error', () => res.destroy());
      req.pipe(upstream);
    }, delayMs);
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    get options() {
      return stats.options;
    },
    stop: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}
