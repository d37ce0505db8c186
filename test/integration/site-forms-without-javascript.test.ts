import { randomUUID } from 'node:crypto';
import { type RunningSite, startSiteServer } from '@forms/example-site';
import { freePort, startTestS3, type TestS3 } from '@forms/local-services';
import type { Browser, BrowserContext, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { inspectionClient, PDF_TYPE, readObject, samplePdf, sha256 } from '../support/cv-files.ts';
import { launchChromium } from '../support/launch-chromium.ts';
import { type Pipeline, startPipeline } from '../support/pipeline.ts';
import { buildSiteClient } from '../support/site-client.ts';
import { eventually } from '../support/wait.ts';

// The demo site with JavaScript off: the browser posts each form itself (urlencoded, or multipart with a
// file), the gateway answers a navigation with a 303 to the site's thank-you page or a page of its own.
let s3: TestS3;
let pipeline: Pipeline;
let site: RunningSite;
let client: { dir: string; remove: () => void } | undefined;
let browser: Browser;
let context: BrowserContext;
const bucket = `nojs-${randomUUID().slice(0, 8)}`;
/** Every URL the browser asked for, to prove nothing personal went into one. */
const urls: string[] = [];

describe('the demo site in Chromium with JavaScript disabled', () => {
  beforeAll(async () => {
    const sitePort = await freePort();
    await Promise.all([
      buildSiteClient().then((built) => (client = built)),
      startTestS3().then((started) => (s3 = started)),
      launchChromium().then((started) => (browser = started)),
    ]);
    pipeline = await startPipeline({ ...s3.env(bucket), FORM_REDIRECT_URLS: `http://127.0.0.1:${sitePort}/` });
    site = await startSiteServer({ apiUrl: pipeline.gateway.url, clientDir: client!.dir, port: sitePort });
    context = await browser.newContext({ javaScriptEnabled: false });
    context.on('request', (req) => urls.push(req.url()));
  }, 120_000);
  afterAll(async () => {
    await context?.close();
    await browser?.close();
    await site?.stop();
    client?.remove();
    await pipeline?.stop();
    await s3?.stop();
  });

  async function openSite(): Promise<Page> {
    const page = await context.newPage();
    await page.route(/^https:\/\//, (route) => route.abort());
    expect((await page.goto(site.url))!.status()).toBe(200);
    // No script ran: the video card still says what the HTML says.
    expect(await page.locator('#latest-video').textContent()).toBe('Loading…');
    return page;
  }

  async function rowsFor(email: string): Promise<Record<string, any>[]> {
    return (await pipeline.db.query('SELECT * FROM submissions WHERE email = $1', [email])).rows;
  }

  async function drained() {
    await eventually(async () => {
      const counts = await pipeline.queue.getJobCounts('waiting', 'active', 'delayed', 'prioritized');
      return Object.values(counts).every((n) => n === 0);
    });
  }

  function expectNothingPersonalInAUrl(...values: string[]) {
    for (const url of urls) {
      for (const value of values) {
        expect(decodeURIComponent(url.replaceAll('+', ' '))).not.toContain(value);
      }
    }
  }

  it('the contact form posts itself, lands on the thank-you page, and reaches the CRM once', async () => {
    const page = await openSite();
    const email = `nojs-${randomUUID()}@acme.io`;
    await page.fill('#contact [name=name]', 'Ada No-Script');
    await page.fill('#contact [name=email]', email);
    await page.fill('#contact [name=message]', 'Sent without JavaScript.');
    const [answer] = await Promise.all([
      page.waitForResponse((res) => res.url().endsWith('/api/contact')),
      page.click('#contact button'),
    ]);
    expect(answer.status()).toBe(303);
    await page.waitForURL(`${site.url}/thanks.html`);
    expect(await page.locator('h1').textContent()).toBe('Thank you');
    await eventually(async () => (await rowsFor(email)).length === 1);
    await drained();
    const rows = await rowsFor(email);
    expect(rows).toHaveLength(1);
    expect(rows[0]).toMatchObject({ kind: 'contact' });
    expect(rows[0]!.payload).toMatchObject({ name: 'Ada No-Script', message: 'Sent without JavaScript.' });
    expectNothingPersonalInAUrl(email, 'Ada No-Script');
    await page.close();
  });

  it('the careers form posts its PDF as a file; the CV reaches the bucket and the CRM once', async () => {
    const page = await openSite();
    const email = `nojs-cv-${randomUUID()}@acme.io`;
    const cv = samplePdf(3_000);
    await page.fill('#careers [name=name]', 'Ada Lovelace');
    await page.fill('#careers [name=email]', email);
    await page.fill('#careers [name=role]', 'Engineer');
    await page.setInputFiles('#careers [name=cvFile]', { name: 'ada-cv.pdf', mimeType: PDF_TYPE, buffer: cv });
    const [request] = await Promise.all([
      page.waitForRequest((req) => req.url().endsWith('/api/careers-apply')),
      page.click('#careers button'),
    ]);
    expect(await request.headerValue('content-type')).toMatch(/^multipart\/form-data; boundary=/);
    await page.waitForURL(`${site.url}/thanks.html`);
    await drained();
    const rows = await rowsFor(email);
    expect(rows).toHaveLength(1);
    expect(rows[0]).toMatchObject({ kind: 'careers-apply', cv_size: cv.length, cv_filename: 'ada-cv.pdf' });
    const stored = await readObject(inspectionClient(s3.env(bucket)), bucket, rows[0]!.cv_key);
    expect(sha256(stored!.bytes)).toBe(sha256(cv));
    expectNothingPersonalInAUrl(email, 'Ada Lovelace');
    await page.close();
  });

  it('a refused field comes back as a page naming it in words; nothing is stored, nothing personal in a URL', async () => {
    const page = await openSite();
    const email = `pat-${randomUUID()}@gmail.com`;
    await page.fill('#signup [name=email]', email);
    const [answer] = await Promise.all([
      page.waitForResponse((res) => res.url().endsWith('/api/cpa-signup')),
      page.click('#signup button'),
    ]);
    expect(answer.status()).toBe(400);
    expect(await page.locator('h1').textContent()).toBe('Your form was not sent');
    expect(await page.locator('li').textContent()).toBe(
      'Please use your work email address in Email: addresses from personal or throwaway email services are not accepted on this form.',
    );
    await drained();
    expect(await rowsFor(email)).toEqual([]);
    expectNothingPersonalInAUrl(email);
    await page.close();
  });

  it('a CV 2 MB over the limit gets a 413 the browser shows', async () => {
    const page = await openSite();
    const email = `big-${randomUUID()}@acme.io`;
    await page.fill('#careers [name=name]', 'Ada');
    await page.fill('#careers [name=email]', email);
    await page.fill('#careers [name=role]', 'Engineer');
    const big = Buffer.concat([samplePdf(), Buffer.alloc(7 * 1024 * 1024)]);
    await page.setInputFiles('#careers [name=cvFile]', { name: 'big.pdf', mimeType: PDF_TYPE, buffer: big });
    const [answer] = await Promise.all([
      page.waitForResponse((res) => res.url().endsWith('/api/careers-apply')),
      page.click('#careers button'),
    ]);
    expect(answer.status()).toBe(413);
    await expect
      .poll(() => page.locator('li').textContent())
      .toContain('The CV file is larger than 5 MiB. Please choose a smaller file');
    await drained();
    expect(await rowsFor(email)).toEqual([]);
    await page.close();
  });
});
